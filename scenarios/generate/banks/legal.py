"""Legal: a law firm and its clients' matters. Cluster A is practice, cluster B firm management."""

from scenarios.generate.banks import role

UNITS = """
litigation group / corporate group / employment practice / tax practice / real estate practice /
intellectual property group / restructuring group / antitrust practice / london office /
chicago office / boston office / houston office / denver office / appellate team /
regulatory practice / white-collar team / pro bono program / trusts and estates group /
energy practice / banking practice / privacy practice / healthcare practice / insurance group /
arbitration team / immigration practice
"""

# Endings for generated organisation names ({org}) in this sector.
ORG_TAILS = [
    "Partners",
    "Holdings",
    "Consulting",
    "Analytics",
    "Legal Solutions",
    "Insurance",
    "Discovery",
    "Advisors",
    "Group",
]

DECISIONS = [
    ("A", "settle the {product liability|securities} class action before trial"),
    ("A", "take the {patent|trade secret} case to trial instead of settling"),
    ("A", "self-report suspected export control violations to regulators"),
    ("A", "seek a preliminary injunction against a former executive"),
    ("A", "appeal the jury verdict in the {breach of contract|antitrust} case"),
    ("A", "accept a new client whose affiliate is adverse to an existing client"),
    ("A", "open an internal investigation into the {sales|procurement} team"),
    ("A", "move the {arbitration|mediation} to a different venue"),
    ("A", "waive privilege to give the investigation report to prosecutors"),
    ("A", "take on a high-profile pro bono {asylum|death penalty} case"),
    ("A", "grow the {white-collar|privacy} practice by hiring a lateral group"),
    ("B", "merge with a mid-sized regional firm"),
    ("B", "adopt generative AI for first-pass document review"),
    ("B", "create a non-equity partner tier"),
    ("B", "open an office in a {new city|neighboring state}"),
    ("B", "switch the largest client to alternative fee arrangements"),
    ("B", "replace the document management system"),
    ("B", "cut associate starting salaries for the next class"),
    ("B", "outsource e-discovery processing to a managed review vendor"),
    ("B", "renew the professional liability policy with a higher deductible"),
    ("B", "sublease part of the headquarters office space"),
    ("AB", "drop a long-standing client over unpaid bills"),
    ("AB", "discipline a partner after a billing audit"),
    ("AB", "offer associates a fully remote track"),
    ("AB", "enter a litigation funding partnership"),
    ("AB", "withdraw from a matter with a growing conflict"),
    ("AB", "respond publicly to press reports about a client dispute"),
]

TOPICS = {
    "matters": """
        count 110-900 | billable hours | time recorded on the matter
        cost 500k-9M | legal fees | what the matter bills
        rate 5.0-39.9 | fee write-offs | discounted bills
        count 120-700 | documents under review | papers still to read
        !finding | conflict check | a possible conflict of interest
        !people | client complaint | an unhappy client
        date | trial | going before the jury
    """,
    "litigation": """
        cost 1M-60M | damages claim | what the other side wants
        rate 10.0-79.9 | win probability | our chances in court
        count 110-900 | depositions | witness interviews
        !offer 500k-40M | settlement | the other side's price to end the case
        !finding | privileged document | a document sent by mistake
        date | hearing | the next court date
    """,
    "deals": """
        cost 5M-90M | deal value | the size of the transaction
        count 110-640 | diligence findings | issues found in the target
        rate 1.0-14.9 | earn-out | the deferred price
        !offer 2M-80M | competing bid | a rival buyer's price
        !finding | undisclosed liability | a hidden problem in the target
        date | closing | the deal completing
    """,
    "firm": """
        cost 5M-90M | partner distributions | profit paid to partners
        rate 60.0-94.9 | realisation | fees actually collected
        count 110-620 | associate headcount | junior lawyers
        !people | lateral partner move | a partner about to leave
        !offer 1M-30M | merger approach | another firm's overture
        date | partnership vote | the partners' vote
    """,
    "compliance": """
        count 110-900 | retention holds | records kept for cases
        rate 70.0-98.9 | training completion | ethics training done
        !finding | trust account | client money handling
        !finding | data security | a breach at the firm
        !people | bar complaint | a complaint to the regulator
        date | malpractice renewal | the insurance renewal
    """,
    "clients": """
        cost 1M-40M | client revenue | what a client pays us
        rate 2.0-29.9 | panel discount | the client's price cut
        count 110-900 | open client matters | live work for the client
        !offer 500k-9M | fixed fee | a client's price cap
        !people | general counsel change | a new decision-maker at the client
        date | panel review | the client's firm review
    """,
    "people": """
        rate 10.0-29.9 | associate attrition | lawyers leaving
        count 110-480 | summer hires | incoming juniors
        cost 1M-20M | bonus pool | year-end bonuses
        !people | harassment complaint | a workplace complaint
        !count 110-300 | planned redundancies | possible job cuts
        date | promotion round | the partnership track decision
    """,
}

# Criteria the goal line may name for each topic: abstract concerns, never an item's subject.
THEMES = {
    "matters": "matter economics / case workload / billing health",
    "litigation": "litigation risk / likely outcome / exposure to damages",
    "deals": "deal risk / transaction terms / deal certainty",
    "firm": "firm economics / partnership stability / firm strategy",
    "compliance": "professional risk / regulatory obligations / ethics exposure",
    "clients": "client relationships / client economics / client loyalty",
    "people": "talent retention / associate morale / people risk",
}

ROLES = [
    role(
        "A",
        "Litigation Partner / Trial Counsel / Litigation Associate",
        "litigation_strategy trial_practice",
        "win the case / protect the client in court / judge the litigation risk",
        holds="litigation matters",
        needs="clients firm compliance",
    ),
    role(
        "A",
        "Corporate Partner / Transactions Counsel / Deal Associate",
        "corporate_transactions deal_practice",
        "get the deal done on good terms / protect the client's deal / judge the transaction risk",
        holds="deals firm",
        needs="clients compliance matters",
    ),
    role(
        "A",
        "Employment Lawyer / Labor Counsel / Workplace Investigations Attorney",
        "employment_law labor_relations workplace_investigations_attorney",
        "handle the workforce side / protect the client from employment claims / judge staff risk",
        holds="people litigation",
        needs="clients firm matters",
    ),
    role(
        "A",
        "Intellectual Property Counsel / Patent Attorney / Trademark Specialist",
        "intellectual_property patent_practice trademark_specialist",
        "protect the client's inventions / keep the rights clean / judge the IP risk",
        holds="litigation deals",
        needs="matters clients compliance",
    ),
    role(
        "A",
        "Regulatory Counsel / Compliance Attorney / Government Affairs Lawyer",
        "regulatory_practice government_affairs compliance_attorney",
        "keep the client within the rules / read the regulators / judge regulatory exposure",
        holds="compliance matters",
        needs="deals litigation clients",
    ),
    role(
        "A",
        "Paralegal Manager / Litigation Support Lead / Discovery Manager",
        "litigation_support discovery_management paralegal_manager",
        "keep discovery on track / manage the documents / meet the deadlines",
        holds="matters deals",
        needs="litigation compliance firm",
    ),
    role(
        "B",
        "Managing Partner / Practice Group Leader / Office Managing Partner",
        "firm_management practice_leadership managing_partner",
        "keep the firm healthy / protect partner profits / decide what the firm takes on",
        holds="firm compliance",
        needs="clients matters people",
    ),
    role(
        "B",
        "Chief Operating Officer / Firm Administrator / Practice Manager",
        "firm_operations practice_management",
        "run the firm efficiently / control costs / keep operations smooth",
        holds="firm people",
        needs="matters clients compliance",
    ),
    role(
        "B",
        "Client Relationship Partner / Business Development Manager / Key Account Lead",
        "client_relationships business_development key_account_lead",
        "keep the client relationship strong / win more work / speak for the client",
        holds="clients firm",
        needs="matters litigation deals",
    ),
    role(
        "B",
        "General Counsel / Risk Management Partner / Ethics Partner",
        "risk_management ethics_counsel",
        "keep the firm out of trouble / manage conflicts / protect the firm's licence",
        holds="compliance litigation",
        needs="firm clients people",
    ),
    role(
        "B",
        "Pricing Director / Legal Finance Manager / Billing Manager",
        "legal_pricing billing_operations",
        "price the work sensibly / get paid / protect realisation",
        holds="matters clients",
        needs="firm deals litigation",
    ),
    role(
        "B",
        "Recruiting Director / Professional Development Manager / Human Resources Director",
        "legal_recruiting professional_development human_resources_director",
        "understand what the plan means for our lawyers / hire well / keep talent",
        holds="people deals",
        needs="firm matters clients",
    ),
]
