"""Campaign files, run identity and pairing rules."""

from specverdict.campaign.load import load_campaign, parse_campaign
from specverdict.campaign.model import Campaign
from specverdict.campaign.plan import Pair, Plan, build_plan
from specverdict.campaign.spec import PairingError, RunSpec, Speculation, check_pair, differing_axes

__all__ = [
    "Campaign",
    "Pair",
    "PairingError",
    "Plan",
    "RunSpec",
    "Speculation",
    "build_plan",
    "check_pair",
    "differing_axes",
    "load_campaign",
    "parse_campaign",
]
