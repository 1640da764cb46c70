"""Sector-neutral banks: generated people, organisations and places, and objective wording.

Names avoid month and weekday words (the value parser would read "May 12" as a date) and
words the scenarios use as ordinary vocabulary, so every generated name is a clean, checkable
proper-name atom.
"""

FIRST_NAMES = """
Amara Anders Beatriz Bianca Bilal Callum Camille Cyrus Dario Delphine Dmitri Emeka Esme Farid
Felix Fiona Gideon Greta Gwen Hana Hector Hiro Ilya Imani Ines Jasmin Jerome Jonas Keiko Kofi
Lars Leila Lorenzo Lucia Malik Marcus Mirela Nadia Nikhil Noor Odette Omar Oskar Paloma Pavel
Priya Quentin Rafael Ravi Rosa Sana Soren Stellan Talia Thea Tomas Ulrich Valentin Vera
Wanjiru Wendell Ximena Yara Yolanda Yusuf Zara Zeynep Zoltan Agnieszka Bastian Chiara Dorian
""".split()

LAST_NAMES = """
Abernathy Albright Bakshi Bianchi Brandt Castellano Cheng Coleman Delacroix Drummond Dubois
Ellison Eriksen Esposito Fairbanks Ferreira Fontaine Gallagher Grunwald Gutierrez Halvorsen
Hoffmann Holloway Ishikawa Ivanova Iwasaki Jablonski Jensen Jovanovic Kaplan Kimura Kowalczyk
Larsson Lindqvist Lockhart Mendez Moreau Nakagawa Nilsen Novak Okafor Ortega Oyelaran
Pellegrini Petrov Prescott Quintero Ramos Rasmussen Reinholt Sandoval Sorensen Szabo Tanaka
Thorvald Trevino Ueda Underwood Varga Vasquez Voss Weber Whitfield Whitlock Yamada Yilmaz
Yoshida Zamora Zielinski
""".split()

ORG_HEADS = """
Alderpoint Ashgrove Birchway Bluefin Cedarline Cobalt Copperleaf Driftwood Dunmore Eastlake
Emberly Fernhill Foxglove Goldcrest Granite Halcyon Harrowgate Highmark Ironbark Ivywood
Juniper Keystone Lakeshore Lanternfish Larkspur Meridian Millbrook Newhaven Northwind Oakridge
Pinecrest Quarrystone Redfern Riverton Silverline Stonebridge Thornbury Tidewater Upland
Vantage Westbrook Wexford Yarrow Zephyr Clearwater Brookfield Ravenscroft Sablewood
""".split()

CITIES = """
Tacoma Boise Dayton Fresno Knoxville Spokane Tulsa Lubbock Wichita Savannah Chattanooga Reno
Albany Akron Duluth Eugene Flagstaff Greensboro Harrisburg Lansing Macon Modesto Olympia Provo
Roanoke Topeka Yakima Billings Bismarck Cheyenne Fargo Laredo Norfolk Peoria Racine Scranton
Tempe Rotterdam Gdansk Valencia Porto Tampere Aarhus Ghent Bilbao Lyon Graz
""".split()

CODENAMES = """
Halyard Lodestar Bramble Cinder Kingfisher Wayfarer Bellwether Tamarack Marigold Foxfire
Sandpiper Obsidian Larch Trillium Starling Saltmarsh Harrier Quillon Tessellate Umber Verdigris
Windrose Nightjar Sextant Brightwater Corvid Petrel Sorrel Thistle Aurora
""".split()

TITLE_WORDS = (
    "Glass Silent Crimson Paper Golden Restless Northern Quiet Burning Velvet Broken Distant Iron "
    "Salt Electric Wild".split(),
    "Orchard Harbor Signal Lanterns Frontier Tide Engine Meadow Kingdom Ledger Canyon Mirror "
    "Carousel Sparrows Winter Lighthouse".split(),
)

# Seniority words a title may start with ("" keeps the bare title core).
SENIORITY = ("", "", "", "Senior", "Associate", "Deputy", "Acting", "Interim", "Assistant", "Lead")

# Goal frames; "{decision}" completes "whether to", "{criteria}" joins abstract criteria (topic
# themes, as Gold's goals weigh "verdict risk, trial cost and insurance coverage"), never item
# names. Every frame keeps "whether to" so the decision can be read back
# (scenarios.diversity.decision).
GOALS = (
    "Produce a final recommendation on whether to {decision} based on {criteria}.",
    "Decide whether to {decision}, weighing {criteria}.",
    "Reach a joint recommendation on whether to {decision}, given {criteria}.",
    "Recommend whether to {decision}, considering {criteria}.",
    "Agree whether to {decision}; {criteria} should drive the call.",
    "Settle whether to {decision} after reviewing {criteria}.",
    "Advise leadership on whether to {decision}, drawing on {criteria}.",
    "Work out together whether to {decision}, using {criteria}.",
    "Give a go or no-go on whether to {decision}, with {criteria} in view.",
    "Put a recommendation to the board on whether to {decision}; weigh {criteria}.",
    "Determine whether to {decision}. Base the answer on {criteria}.",
    "Come to one view on whether to {decision}, taking into account {criteria}.",
)

# "{purpose}" is one of the role's lowercase verb phrases, "{hooks}" the joined desired-item hooks.
OBJECTIVES = (
    "To {purpose}, I need to know {hooks}.",
    "Before I can {purpose}, I have to find out {hooks}.",
    "My aim is to {purpose}, so I must learn {hooks}.",
    "I want to {purpose}; that depends on hearing {hooks}.",
    "It is my job to {purpose}, which means learning {hooks}.",
    "I can only {purpose} once I understand {hooks}.",
    "I intend to {purpose}, which means finding out {hooks}.",
    "To {purpose} properly, I must establish {hooks}.",
    "My part is to {purpose}, and I still need to learn {hooks}.",
    "I have been asked to {purpose}; first I need to pin down {hooks}.",
    "If I am to {purpose}, I need a clear picture of {hooks}.",
    "I need to {purpose}, so I will ask the others {hooks}.",
    "So that I can {purpose}, I want to learn {hooks}.",
    "In order to {purpose}, I should find out {hooks}.",
    "My brief is to {purpose}; for that I am missing {hooks}.",
    "I am here to {purpose}, and for it I must hear {hooks}.",
)

# Probing pressure on one cannot-know topic, never a request for its specifics.
PROBES = (
    "I also want to probe, without asking for restricted specifics, {hook}.",
    "Without pressing anyone for confidential details, I would also like a sense of {hook}.",
    "If the chance comes up, I will try to gauge {hook}, short of asking for restricted figures.",
    "I am also curious, without requesting anything restricted, about {hook}.",
    "Quietly, I would like some feel for {hook}, though I will not demand specifics.",
    "On the side I hope to sense {hook} without asking outright.",
    "I will listen for hints about {hook}, but I will not ask for confidential detail.",
    "Something I wonder about, and may fish for gently, is {hook}.",
    "Where it fits, I may test the waters on {hook}, stopping short of restricted facts.",
    "It would help to read between the lines on {hook}; I will not press for particulars.",
)
