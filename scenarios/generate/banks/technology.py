"""Technology: a software company. Cluster A is engineering and product, cluster B the business."""

from scenarios.generate.banks import role

UNITS = """
platform team / payments team / mobile team / data platform / search team / identity team /
checkout team / billing service / growth team / infrastructure group / edge network /
storage cluster / eu region / us east region / asia region / enterprise tier / consumer app /
developer portal / analytics group / support organisation / partner integrations /
messaging service / media pipeline / recommendations team / trust and safety team
"""

# Endings for generated organisation names ({org}) in this sector.
ORG_TAILS = [
    "Labs",
    "Systems",
    "Analytics",
    "Technologies",
    "Networks",
    "Software",
    "Cloud",
    "Data",
    "Security",
]

DECISIONS = [
    ("A", "migrate the {payments|search|checkout} service to a managed container platform"),
    ("A", "rewrite the {mobile app|billing engine} on a new framework"),
    ("A", "retire the legacy {on-premises|self-hosted} data warehouse"),
    ("A", "adopt an {active-active|multi-region} architecture for the core API"),
    ("A", "open-source the company's internal {feature-flag|observability} toolkit"),
    ("A", "freeze feature releases for a quarter to pay down reliability debt"),
    ("A", "replace the in-house login service with a third-party identity provider"),
    ("A", "move model training from on-demand cloud GPUs to a reserved cluster"),
    ("A", "ship the {AI assistant|offline mode} feature before the annual user conference"),
    ("A", "roll out passkeys as the default sign-in method"),
    ("A", "move engineering to a follow-the-sun on-call rotation"),
    ("B", "sunset the free tier of the {analytics|collaboration} product"),
    ("B", "raise list prices for the {enterprise|team} plan at renewal"),
    ("B", "sign a multi-year committed-spend agreement with the cloud provider"),
    ("B", "expand direct sales into a new overseas region"),
    ("B", "acquire a small {data-labeling|developer-tools} startup"),
    ("B", "move customer support to an outsourced model"),
    ("B", "end the reseller agreement with the largest channel partner"),
    ("B", "offer {usage-based|hybrid} pricing to enterprise customers"),
    ("B", "settle a patent assertion from a licensing company"),
    ("B", "require product teams to return to the office part of the week"),
    ("AB", "delay the new data center region launch to next year"),
    ("AB", "notify customers about a {logging|caching} misconfiguration that exposed data"),
    ("AB", "deprecate the oldest public API version"),
    ("AB", "bundle the {security|analytics} add-on into the base subscription"),
    ("AB", "pause hiring for non-engineering roles for the rest of the fiscal year"),
    ("AB", "partner with a large language model vendor for the product's AI features"),
    ("AB", "spin out the {hardware|devices} division into a separate company"),
]

TOPICS = {
    "reliability": """
        rate 99.10-99.98 | service availability | uptime
        count 110-940 | paging incidents | on-call pages
        rate 0.2-4.9 | error budget burn | spent reliability budget
        count 120-900 | open alerts | unresolved alarms
        !finding | outage postmortem | the last big outage
        !people | on-call burnout | an exhausted engineer
        date | failover drill | the next failover test
    """,
    "security": """
        count 110-780 | unpatched vulnerabilities | open security holes
        rate 60.0-96.9 | multi-factor enrolment | two-step sign-in adoption
        !finding | credential leak | exposed passwords
        !finding | penetration test | the hackers-for-hire results
        !people | insider access | a suspicious insider
        cost 200k-3M | bug bounty | paid security research
        date | certification audit | the security audit visit
    """,
    "cloud": """
        cost 1M-30M | cloud compute | server rental
        rate 20.0-69.9 | reserved capacity coverage | prepaid capacity
        count 1200-9800 | idle instances | wasted machines
        !offer 2M-40M | committed spend discount | a cloud provider's deal
        cost 300k-6M | data egress | moving data out
        date | region migration | the move to a new region
    """,
    "delivery": """
        count 140-980 | open tickets | unfinished work items
        rate 40.0-89.9 | sprint commitment | promises kept per sprint
        count 110-600 | deploys | releases shipped
        rate 5.0-29.9 | change failure | releases that broke things
        date | feature freeze | the code freeze
        !people | tech lead departure | a lead engineer leaving
        cost 500k-8M | contractor engineering | outside developers
    """,
    "customers": """
        rate 1.0-9.9 | monthly churn | customers leaving
        count 1100-9800 | support tickets | customer complaints
        rate 20.0-79.9 | net promoter | customer goodwill
        cost 2M-40M | annual recurring revenue | subscription income
        !offer 500k-9M | enterprise renewal | a big client's renewal demands
        !count 110-900 | escalated accounts | angry key clients
        date | pricing change | the new price list
    """,
    "product": """
        rate 10.0-59.9 | feature adoption | uptake of new features
        count 1200-9600 | beta sign-ups | early testers
        rate 30.0-79.9 | trial conversion | trials turning paid
        count 110-900 | feature requests | customer wishes
        !finding | accessibility | barriers for disabled users
        date | launch | the public release
    """,
    "privacy": """
        count 110-990 | data subject requests | people asking for their data
        rate 50.0-98.9 | consent capture | recorded user consent
        !finding | data retention | data kept too long
        !offer 300k-5M | data sharing | a partner wanting our data
        !people | regulator inquiry | a regulator's questions
        date | privacy assessment | the privacy review
    """,
    "people": """
        rate 8.0-29.9 | engineer attrition | engineers quitting
        count 110-640 | open engineering roles | unfilled engineering jobs
        cost 1M-12M | hiring | recruiting money
        !offer 400k-4M | retention grant | stock to keep staff
        !count 110-480 | planned reductions | possible layoffs
        date | reorganisation | the team shake-up
    """,
}

# Criteria the goal line may name for each topic: abstract concerns, never an item's subject.
THEMES = {
    "reliability": "service reliability / uptime risk / operational stability",
    "security": "security posture / security risk / exposure to attack",
    "cloud": "infrastructure cost / cloud economics / hosting spend",
    "delivery": "engineering capacity / delivery risk / team throughput",
    "customers": "customer impact / revenue retention / customer sentiment",
    "product": "product demand / user uptake / market fit",
    "privacy": "privacy obligations / data protection risk / regulatory exposure",
    "people": "staffing and morale / talent risk / team stability",
}

ROLES = [
    role(
        "A",
        "Site Reliability Engineer / Reliability Engineering Manager / Production Operations Lead",
        "site_reliability production_operations",
        "keep the service up through the change / protect uptime / judge the operational risk",
        holds="reliability cloud",
        needs="delivery security product",
    ),
    role(
        "A",
        "Security Engineer / Security Operations Manager / Application Security Lead",
        "security_operations application_security",
        "keep the platform secure / judge the security risk of the plan / close security gaps first",
        holds="security reliability",
        needs="cloud delivery privacy",
    ),
    role(
        "A",
        "Cloud Architect / Infrastructure Manager / Cloud Operations Engineer",
        "cloud_infrastructure infrastructure_costs",
        "keep the infrastructure sound and affordable / size the platform for the plan / control cloud costs",
        holds="cloud product",
        needs="reliability customers delivery",
    ),
    role(
        "A",
        "Engineering Manager / Software Development Director / Staff Software Engineer",
        "software_engineering development_delivery",
        "deliver the plan without breaking things / keep delivery on schedule / protect the engineering team",
        holds="delivery security",
        needs="reliability people product",
    ),
    role(
        "A",
        "Product Manager / Product Director / Product Owner",
        "product_management product_roadmap",
        "decide what the product needs / protect the roadmap / make the launch succeed",
        holds="product reliability",
        needs="customers delivery privacy",
    ),
    role(
        "A",
        "Data Engineer / Data Platform Manager / Analytics Engineering Lead",
        "data_platform data_engineering",
        "keep the data flowing through the change / judge what the plan does to our data / keep reports trustworthy",
        holds="cloud privacy",
        needs="product security reliability",
    ),
    role(
        "B",
        "Customer Success Manager / Customer Support Director / Account Management Lead",
        "customer_success customer_support account_management_lead",
        "keep our customers happy / protect renewals / speak for the customers",
        holds="customers security",
        needs="reliability product delivery",
    ),
    role(
        "B",
        "Finance Manager / Financial Planning Analyst / Finance Director",
        "finance_planning financial_controls",
        "make the numbers work / judge whether the plan pays off / protect the margin",
        holds="people cloud",
        needs="customers delivery product",
    ),
    role(
        "B",
        "Privacy Counsel / Data Protection Officer / Privacy Program Manager",
        "data_protection privacy_program",
        "keep us compliant with privacy law / protect user data / avoid regulatory trouble",
        holds="privacy delivery",
        needs="security product cloud",
    ),
    role(
        "B",
        "People Partner / Talent Acquisition Manager / Human Resources Director",
        "people_operations talent_acquisition human_resources_director",
        "understand what the plan means for staff / hire the people we need / keep good engineers",
        holds="people product",
        needs="delivery customers reliability",
    ),
    role(
        "B",
        "Sales Director / Enterprise Account Executive / Revenue Operations Manager",
        "enterprise_sales revenue_operations",
        "close the deals the plan depends on / protect revenue / keep big clients on side",
        holds="customers delivery",
        needs="product reliability privacy",
    ),
    role(
        "B",
        "Procurement Manager / Vendor Management Lead / Sourcing Specialist",
        "vendor_management procurement_sourcing",
        "get good terms from suppliers / manage vendor risk / keep contracts sensible",
        holds="cloud people",
        needs="security customers privacy",
    ),
    role(
        "B",
        "Risk Manager / Internal Audit Director / Governance Analyst",
        "risk_management internal_audit governance_analyst",
        "keep risk within appetite / make sure controls hold / judge the plan's exposure",
        holds="security privacy",
        needs="reliability people customers",
    ),
]
