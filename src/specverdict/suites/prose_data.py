"""The prompts of ``prose@1``: non-code requests written for specverdict (Apache-2.0).

Five kinds, each with a short and a long end: explanations, summaries of a paragraph given in
the prompt, e-mails, stories and step-by-step instructions. Changing, adding or removing a
prompt changes what the suite measures: bump ``Prose.version`` when this file changes.
"""

from __future__ import annotations

from typing import Final

#: (kind, prompt) pairs; a prompt's id is ``prose/<kind>-<n>`` with n counted within its kind
EXPLAIN: Final = (
    "Explain in two or three sentences why the sky looks blue during the day.",
    "Explain what inflation is to a twelve-year-old, in one short paragraph.",
    "What is the difference between weather and climate? Answer in about 100 words.",
    "Explain how a bicycle stays upright while it moves. Keep it under 150 words.",
    "Why do we have leap years? Give a short explanation a student could remember.",
    "Explain what a mortgage is and how its monthly payment is made up, in plain language.",
    "Describe how vaccines train the immune system, in three short paragraphs.",
    "Explain the main causes of ocean tides in about 120 words.",
    "What does compound interest mean? Give one worked example with round numbers.",
    "Explain why bread dough rises, for someone baking for the first time.",
    "In one paragraph, explain what photosynthesis does for a plant and for the air we breathe.",
    "Explain the difference between a virus and a bacterium in a short list of points.",
)

SUMMARIZE: Final = (
    "Summarize the following paragraph in one sentence.\n\n"
    "The town council met on Tuesday to discuss the future of the old railway station. Built in "
    "1898 and closed to passengers in 1971, the building has stood empty for years, and its roof "
    "now leaks in several places. One group of residents wants it turned into a library and "
    "community hall; another would prefer to sell the land to a developer and use the money to "
    "repair the town's roads. The council agreed to pay for a survey of the building before "
    "making any decision, and promised a public meeting once the results are known.",
    "Summarize this paragraph in two sentences for a busy manager.\n\n"
    "During the third quarter the support team answered 14,200 tickets, up from 11,900 in the "
    "second quarter. The median time to a first reply fell from nine hours to five, mostly "
    "because of the new rota that covers weekend mornings. Satisfaction scores stayed flat at "
    "about 4.2 out of 5. The team expects the volume to grow again after the product launch in "
    "November and asks for two more people before then, warning that reply times will slip "
    "back without them.",
    "Give a three-bullet summary of the paragraph below.\n\n"
    "Honeybees communicate the location of food through a movement known as the waggle dance. A "
    "forager returning to the hive runs in a straight line while shaking her body, then loops "
    "back and repeats. The angle of the straight run relative to vertical matches the angle "
    "between the sun and the food source, and the length of the run tells the other bees how "
    "far away it is. Bees that follow the dance then fly out and find the flowers with "
    "surprising accuracy, even several kilometres away.",
    "Summarize the following text in at most 30 words.\n\n"
    "Our apartment building will have its water switched off on Thursday between 9 a.m. and 1 "
    "p.m. while the plumbers replace the main valve in the basement. Please fill a few bottles "
    "the evening before if you need water during that time. The lift will keep working, but the "
    "laundry room will be closed for the whole day. We apologise for the inconvenience and thank "
    "you for your patience.",
    "Write a one-paragraph summary of this passage for a school newsletter.\n\n"
    "Last Saturday forty pupils and a dozen parents spent the morning cleaning the river bank "
    "behind the sports field. They collected eleven bags of rubbish, including two shopping "
    "trolleys and an old bicycle, and planted thirty young willow trees donated by a local "
    "nursery. The science club measured the water quality before and after and plans to repeat "
    "the measurements every month. The organisers hope to make the clean-up an annual event.",
    "Summarize the main argument of this paragraph in one sentence, then list its evidence.\n\n"
    "Cities that invest in protected cycle lanes tend to see more people cycling, and not only "
    "the confident riders who were cycling already. When a network of separated lanes was "
    "built in one mid-sized city, the number of daily cycle trips doubled within four years, "
    "and the share of women and older riders grew faster than the total. Shops along the new "
    "lanes, which had feared losing customers who drive, reported steady or higher sales. "
    "Painted lanes without a physical barrier showed much smaller changes.",
    "Summarize the paragraph below in plain words, as if explaining it to a friend.\n\n"
    "The warranty covers defects in materials and workmanship for a period of twenty-four "
    "months from the date of purchase, provided that the product has been used in accordance "
    "with the instructions. It does not cover damage caused by accidents, misuse, unauthorised "
    "repairs or normal wear of consumable parts such as filters and seals. To make a claim, the "
    "customer must present proof of purchase and return the product to an authorised service "
    "centre at their own expense.",
    "Summarize this paragraph in exactly two sentences.\n\n"
    "The expedition left the coast in early March with six people, twelve dogs and supplies for "
    "ninety days. Storms held them in their tents for most of the second week, and by the end of "
    "the first month they had covered less than half the planned distance. They decided to leave "
    "part of their food in a marked depot and continue with lighter sledges. The gamble paid "
    "off: they reached the plateau in April and returned to the depot, and then to the coast, "
    "before the autumn darkness set in.",
    "Write a short headline and a one-sentence summary for this paragraph.\n\n"
    "A small bakery in the old quarter has started selling bread baked with flour from wheat "
    "grown less than twenty kilometres away. The owner says the local flour costs more and "
    "behaves differently in the dough, so the recipes took months to adjust. Customers have "
    "responded well: the new loaves sell out most mornings, and two nearby cafes now order them "
    "daily. The bakery plans to add a rye bread made the same way next spring.",
    "Summarize the following paragraph for someone who has never heard of the topic.\n\n"
    "A solar eclipse happens when the Moon passes between the Earth and the Sun and casts its "
    "shadow on part of the Earth. Because the Moon's orbit is tilted slightly compared with the "
    "Earth's path around the Sun, the three bodies line up only a few times a year, and a total "
    "eclipse is visible from any given place only rarely, on average once every few centuries. "
    "During totality the sky darkens, the temperature drops and the Sun's outer atmosphere, the "
    "corona, becomes visible.",
)

EMAIL: Final = (
    "Write a short e-mail to a colleague asking to move our Thursday meeting to Friday morning.",
    "Write a polite e-mail to a landlord reporting that the kitchen tap has been dripping for a "
    "week, and asking when a plumber can come.",
    "Write an e-mail declining a job offer while keeping a good relationship with the company.",
    "Write a brief e-mail thanking a teacher at the end of the school year, from a parent.",
    "Write an e-mail to a customer apologising that their order will arrive four days late, "
    "and offering free shipping on their next order.",
    "Write an e-mail inviting the neighbours to a small garden party on Saturday afternoon.",
    "Write a follow-up e-mail after a job interview, about 120 words, for a nursing position.",
    "Write an e-mail to a team announcing that the office will be closed on Monday for "
    "maintenance, and that everyone should work from home.",
    "Write a firm but friendly e-mail reminding a client that an invoice is thirty days overdue.",
    "Write an e-mail to a former professor asking for a letter of recommendation for a "
    "master's programme, mentioning the course you took with them.",
)

STORY: Final = (
    "Write a four-sentence story about a lighthouse keeper who finds a message in a bottle.",
    "Write a short bedtime story about a small fox who is afraid of the dark.",
    "Write a story of about 200 words in which a robot learns to bake bread.",
    "Tell a short story, set on a night train, that ends with an unexpected kindness.",
    "Write a fable with a clear moral about a tortoise who wants to fly.",
    "Write the opening paragraph of a mystery novel set in a snowed-in mountain hotel.",
    "Write a short story told entirely as a series of notes left on a fridge.",
    "Write a humorous story of about 150 words about a cat who becomes mayor of a village.",
    "Write a very short science-fiction story about the first garden on Mars.",
    "Write a short story about two old friends meeting again after forty years, mostly in "
    "dialogue.",
)

INSTRUCT: Final = (
    "Give step-by-step instructions for making a cup of tea with loose leaves.",
    "List the steps to change a flat tyre on a car, in order, with a short safety note.",
    "Explain how to plant tomato seedlings in a garden bed, as numbered steps.",
    "Write clear instructions for a new employee on how to book a meeting room, in five steps.",
    "How do I prepare for a job interview? Give a checklist of eight items.",
    "Give simple instructions for cleaning a cast-iron pan without damaging it.",
    "Write instructions for a child on how to tie their shoelaces.",
    "Describe, step by step, how to make a basic vinaigrette, with quantities.",
    "Give advice in five short points on how to write a good cover letter.",
    "Explain how to set up a weekly household budget, in numbered steps with an example.",
)

PROMPTS: Final[tuple[tuple[str, tuple[str, ...]], ...]] = (
    ("explain", EXPLAIN),
    ("summarize", SUMMARIZE),
    ("email", EMAIL),
    ("story", STORY),
    ("instruct", INSTRUCT),
)
