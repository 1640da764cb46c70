"""Entertainment: a studio with streaming, music, theme parks and live events.

Cluster A is creative work and venue operations, cluster B the business side.
"""

from scenarios.generate.banks import role

UNITS = """
film studio / television unit / streaming service / music label / live events /
theme park / games studio / animation unit / documentary unit / podcast network /
london office / los angeles office / new york office / post-production house / sound stage /
touring arm / festival team / licensing arm / kids channel / sports network /
news channel / merchandise arm / talent agency / ticketing arm / visual effects unit
"""

# Endings for generated organisation names ({org}) in this sector.
ORG_TAILS = [
    "Pictures",
    "Studios",
    "Media",
    "Entertainment",
    "Records",
    "Live",
    "Digital",
    "Films",
    "Sound",
]

DECISIONS = [
    (
        "A",
        "greenlight a {science fiction|period drama|animated} feature with a first-time director",
    ),
    ("A", "renew the {reality competition|crime drama} series for another season"),
    ("A", "move the {holiday|summer} tentpole film to a streaming-first release"),
    ("A", "reshoot the ending of the upcoming thriller after poor test screenings"),
    ("A", "cast a social media star as the lead of the new comedy"),
    ("A", "shoot the next series on a virtual production stage instead of on location"),
    ("A", "release the new album as a surprise drop instead of a staged rollout"),
    ("A", "delay the flagship video game by a season to fix performance problems"),
    ("A", "sign a {first-look|overall} deal with an award-winning showrunner"),
    ("A", "add a {late-night|weekend} live comedy show to the streaming lineup"),
    ("A", "replace the theme park's parade with a nighttime projection show"),
    ("B", "raise the streaming service's monthly subscription price"),
    ("B", "launch an ad-supported streaming tier"),
    ("B", "sell the {music catalog|film library} to a private equity buyer"),
    ("B", "add a second arena date on the tour's final leg"),
    ("B", "open the new roller coaster before its safety recertification is complete"),
    ("B", "license the studio's animated characters to an overseas toy maker"),
    ("B", "settle a copyright claim over the hit series' theme song"),
    ("B", "move the annual fan convention to a larger venue in another city"),
    ("B", "pull an episode after a participant's allegations surfaced"),
    ("B", "use AI-generated voices to dub foreign-language versions"),
    ("B", "stop selling tickets through the current ticketing partner"),
    ("AB", "pause production on the series after an on-set injury"),
    ("AB", "bundle the streaming service with a mobile carrier's plans"),
    ("AB", "relocate production to a region with larger tax credits"),
    ("AB", "cancel the {sequel|spin-off} already in development"),
    ("AB", "keep the theme park open through the winter"),
    ("AB", "partner with a sports league on a documentary series"),
]

TOPICS = {
    "production": """
        cost 2M-90M | production | making the show
        count 110-900 | shooting days | days on set
        rate 2.0-24.9 | budget overrun | spending past plan
        count 120-700 | crew members | people on set
        !finding | set safety | an accident on set
        !people | director dispute | a clash with the director
        date | principal photography | the start of shooting
    """,
    "talent": """
        !offer 500k-20M | lead actor | a star's asking price
        cost 1M-20M | residuals | payments to performers
        count 110-900 | casting submissions | actors applying
        !people | talent misconduct | a performer's behaviour
        !offer 300k-9M | showrunner | a creator's new terms
        date | contract option | the option deadline
    """,
    "audience": """
        count 1200-9800 | streaming hours | time watched
        rate 10.0-69.9 | completion | viewers finishing
        rate 1.0-9.9 | subscriber churn | people cancelling
        count 110-900 | social mentions | online buzz
        !finding | test screening | the preview audience's verdict
        date | premiere | the opening night
    """,
    "distribution": """
        cost 1M-40M | licensing revenue | selling rights
        count 110-640 | territories sold | markets that bought it
        !offer 2M-60M | streaming licence | a platform's bid
        rate 20.0-59.9 | theatrical share | the cinema cut
        !finding | piracy | stolen copies
        date | release window | the release slot
    """,
    "marketing": """
        cost 1M-30M | marketing | promotion money
        rate 1.0-9.9 | trailer click-through | trailer response
        count 110-900 | press placements | media coverage
        !offer 500k-9M | brand partnership | a sponsor's deal
        !finding | leaked footage | material that got out
        date | campaign launch | the ad push
    """,
    "rights": """
        count 110-900 | music cues cleared | licensed songs
        cost 200k-5M | clearance | rights fees
        !finding | copyright claim | an ownership dispute
        !people | estate negotiation | an heir's demands
        rate 40.0-94.9 | rights coverage | territories cleared
        date | rights expiry | when the rights lapse
    """,
    "venues": """
        count 1100-9600 | tickets sold | seats filled
        rate 50.0-98.9 | venue occupancy | full houses
        cost 300k-8M | venue hire | renting the space
        !finding | crowd safety | a safety scare
        !offer 400k-9M | venue operator | a hall's terms
        date | tour opening | the first show
    """,
}

# Criteria the goal line may name for each topic: abstract concerns, never an item's subject.
THEMES = {
    "production": "shoot logistics / on-set conditions / filming risk",
    "talent": "talent relations / cast availability / creative team stability",
    "audience": "audience appeal / viewer demand / fan response",
    "distribution": "distribution reach / revenue windows / international sales",
    "rights": "rights position / ownership risk / licensing exposure",
    "marketing": "promotional reach / publicity / campaign strength",
    "venues": "venue capacity / live event safety / ticketing outlook",
}

ROLES = [
    role(
        "A",
        "Line Producer / Production Manager / Unit Production Manager",
        "production_management production_budget",
        "bring the show in on budget / keep the shoot on schedule / protect the production",
        holds="production marketing",
        needs="talent rights venues",
    ),
    role(
        "A",
        "Creative Director / Development Executive / Story Editor",
        "creative_development story_development",
        "protect the creative vision / pick the right projects / keep the story strong",
        holds="audience talent",
        needs="production marketing distribution",
    ),
    role(
        "A",
        "Casting Director / Talent Relations Manager / Talent Coordinator",
        "talent_relations casting_office",
        "keep the talent on board / cast the project well / manage talent demands",
        holds="talent venues",
        needs="production audience marketing",
    ),
    role(
        "A",
        "Post-Production Supervisor / Editor / Visual Effects Producer",
        "post_production visual_effects editor",
        "finish the picture on time / protect post quality / judge the post schedule",
        holds="production rights",
        needs="distribution talent marketing",
    ),
    role(
        "A",
        "Tour Manager / Live Events Producer / Venue Operations Manager",
        "live_events venue_operations tour_manager",
        "run the live events safely / fill the venues / keep the tour on track",
        holds="venues production",
        needs="marketing talent audience",
    ),
    role(
        "A",
        "Audience Research Manager / Insights Analyst / Data Science Lead",
        "audience_research audience_insights data_science_lead",
        "understand the audience / judge what will work / read the numbers honestly",
        holds="audience venues",
        needs="marketing distribution production",
    ),
    role(
        "B",
        "Distribution Executive / Sales Director / Licensing Manager",
        "distribution_sales content_licensing",
        "sell the content widely / protect licensing income / place the release well",
        holds="distribution marketing",
        needs="audience rights production",
    ),
    role(
        "B",
        "Marketing Director / Publicity Manager / Brand Partnerships Lead",
        "marketing_campaigns brand_partnerships publicity_manager",
        "make the launch land / protect the brand / spend promotion money well",
        holds="marketing rights",
        needs="audience distribution talent",
    ),
    role(
        "B",
        "Business Affairs Executive / Rights Manager / Clearances Coordinator",
        "business_affairs rights_clearance",
        "keep the rights clean / negotiate sound deals / avoid legal exposure",
        holds="rights talent",
        needs="distribution production venues",
    ),
    role(
        "B",
        "Finance Director / Studio Controller / Production Accountant",
        "studio_finance production_accounting",
        "make the numbers work / protect the slate / judge whether the plan pays",
        holds="production distribution",
        needs="marketing talent audience",
    ),
    role(
        "B",
        "Legal Counsel / Litigation Manager / Contracts Attorney",
        "legal_affairs contract_law litigation_manager",
        "keep the company out of court / protect our contracts / judge legal risk",
        holds="rights audience",
        needs="talent marketing venues",
    ),
    role(
        "B",
        "Streaming Product Manager / Platform Director / Subscriber Growth Lead",
        "streaming_platform subscriber_growth",
        "grow subscribers / keep viewers watching / protect the platform",
        holds="audience distribution",
        needs="marketing rights production",
    ),
]
