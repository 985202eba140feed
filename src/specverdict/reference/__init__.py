"""The embedded reference engine: small real models with real speculative decoding on numpy.

Importable without the rest of the harness; the harness talks to it over HTTP only.
"""
