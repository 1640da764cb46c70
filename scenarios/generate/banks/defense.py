"""Defense: an acquisition program and its base. Cluster A is operations, cluster B business."""

from scenarios.generate.banks import role

UNITS = """
north depot / south depot / test range / flight line / shipyard / field office /
forward site / depot annex / training center / logistics hub / east wing / west wing /
program office / integration lab / hangar complex / munitions yard / radar station /
supply point / maintenance bay / naval annex / air wing / ground brigade / harbor facility /
coastal station / mountain site
"""

# Endings for generated organisation names ({org}) in this sector.
ORG_TAILS = [
    "Dynamics",
    "Aerospace",
    "Defense Systems",
    "Industries",
    "Technologies",
    "Precision",
    "Electronics",
    "Engineering",
    "Shipbuilding",
]

DECISIONS = [
    (
        "A",
        "extend the service life of the {tactical radio|night vision} fleet instead of replacing it",
    ),
    ("A", "move the {radar|sonar} upgrade program into low-rate initial production"),
    (
        "A",
        "shift depot maintenance of the {helicopter|armored vehicle} fleet to a contractor facility",
    ),
    ("A", "delay the next {flight|sea} test until the software fix is verified"),
    ("A", "stand up a forward repair cell at the {northern|coastal} staging base"),
    ("A", "replace the legacy mission planning software with a commercial product"),
    ("A", "adopt predictive maintenance for the {transport aircraft|patrol boat} fleet"),
    ("A", "consolidate the {ammunition|spare parts} warehouses into a single regional depot"),
    ("A", "field the counter-drone system to deployed units before operational testing ends"),
    ("A", "retire the oldest {training simulators|tactical trucks} a year early"),
    ("A", "move the program's classified network to a new enclave"),
    ("B", "award the {sustainment|engineering services} contract to a second source"),
    ("B", "grant a clearance waiver to a key subcontractor engineer"),
    (
        "B",
        "approve a foreign military sale of {surveillance drones|coastal radars} to a partner nation",
    ),
    ("B", "qualify a second supplier for a critical {microelectronics|propellant} component"),
    ("B", "convert the program's cost-plus contract to a fixed-price contract"),
    ("B", "terminate the {training|logistics} support contract for convenience"),
    (
        "B",
        "accept an unsolicited proposal for a {satellite communications|hypersonic test} capability",
    ),
    ("B", "waive the domestic content rule for a {rare-earth magnet|specialty steel} part"),
    ("B", "reprogram funds from the {training|facilities} account to cover a cost overrun"),
    ("B", "release the program's technical data package to a new vendor"),
    ("AB", "relocate the {test squadron|maintenance unit} to another installation"),
    ("AB", "report a suspected counterfeit part to the program office and industry partners"),
    ("AB", "accelerate the program schedule to meet a new operational need"),
    ("AB", "bring the {cyber defense|software maintenance} work back in-house"),
    ("AB", "pause deliveries after a quality escape at a supplier plant"),
    ("AB", "share program threat data with an allied partner's engineers"),
]

TOPICS = {
    "readiness": """
        rate 60.0-94.9 | mission capable | aircraft ready to fly
        count 110-980 | deferred maintenance actions | postponed repairs
        rate 5.0-29.9 | cannibalisation | parts pulled from other units
        count 120-900 | spare part backorders | missing spares
        !finding | safety stand-down | a grounding after an incident
        date | readiness inspection | the inspection visit
    """,
    "program": """
        cost 5M-90M | development | engineering work on the program
        rate 2.0-24.9 | schedule variance | slippage against plan
        count 110-640 | open engineering changes | pending design changes
        !finding | earned value | the contractor's cost reporting
        !people | program manager reassignment | a leadership change
        date | milestone decision | the next major milestone
        cost 1M-20M | test and evaluation | trials of the system
    """,
    "contracts": """
        !offer 5M-90M | follow-on production | the contractor's price for more units
        cost 1M-30M | sustainment | keeping systems supported
        count 110-480 | contract modifications | changes to the deal
        rate 4.0-14.9 | award fee | the contractor's bonus
        !finding | protest | a losing bidder's challenge
        date | option exercise | the contract option decision
    """,
    "security": """
        count 110-900 | clearance backlog | people waiting for clearances
        !finding | classified spill | a leak of classified material
        !people | insider threat referral | a worrying employee
        rate 70.0-98.9 | security training completion | staff security courses
        !finding | supply chain | suspect components
        date | accreditation renewal | the network's approval to operate
    """,
    "logistics": """
        cost 500k-9M | fuel | what the vehicles and aircraft burn
        count 1200-9600 | shipments in transit | cargo on the move
        rate 70.0-98.9 | on-time delivery | deliveries arriving on schedule
        count 110-900 | stock-outs | empty shelves
        !offer 400k-7M | lift charter | a carrier's price for airlift
        date | depot consolidation | merging supply depots
    """,
    "personnel": """
        rate 60.0-97.9 | manning | filled billets
        count 110-720 | pending transfers | people about to move
        rate 5.0-24.9 | retention shortfall | people not re-enlisting
        cost 400k-6M | bonus | incentive pay
        !people | command investigation | an officer under review
        date | deployment rotation | the next rotation
    """,
    "budget": """
        cost 10M-90M | operations and maintenance | running costs
        rate 50.0-89.9 | obligation | funds committed so far
        !cost 2M-40M | unfunded requirement | needs without money
        cost 1M-20M | reprogramming | moving money between accounts
        !finding | anti-deficiency | spending without authority
        date | budget submission | the next budget deadline
    """,
}

# Criteria the goal line may name for each topic: abstract concerns, never an item's subject.
THEMES = {
    "readiness": "fleet readiness / operational availability / mission readiness",
    "program": "schedule risk / program health / technical maturity",
    "contracts": "contract terms / acquisition strategy / contracting risk",
    "security": "security risk / safeguarding of classified work / insider risk",
    "logistics": "logistics capacity / supply reliability / distribution risk",
    "personnel": "personnel strength / troop morale / workforce stability",
    "budget": "funding availability / budget execution / fiscal risk",
}

ROLES = [
    role(
        "A",
        "Maintenance Officer / Aircraft Maintenance Supervisor / Maintenance Control Chief",
        "aircraft_maintenance maintenance_readiness",
        "keep the fleet ready / protect maintenance capacity / judge what the plan does to readiness",
        holds="readiness security",
        needs="logistics personnel budget",
    ),
    role(
        "A",
        "Operations Officer / Training Operations Chief / Operations Planner",
        "operations_planning training_operations",
        "keep units trained and ready / plan the operations / judge the plan's effect on missions",
        holds="personnel readiness",
        needs="logistics security budget",
    ),
    role(
        "A",
        "Logistics Officer / Supply Chain Manager / Distribution Supervisor",
        "logistics_support supply_chain distribution_supervisor",
        "keep supplies moving / protect the supply chain / make sure parts arrive",
        holds="logistics personnel",
        needs="readiness budget contracts",
    ),
    role(
        "A",
        "Test Director / Test and Evaluation Engineer / Range Operations Manager",
        "test_evaluation range_operations",
        "prove the system works / keep testing honest / judge whether trials can proceed",
        holds="program budget",
        needs="security readiness logistics",
    ),
    role(
        "A",
        "Systems Engineer / Chief Engineer / Engineering Integration Lead",
        "systems_engineering engineering_integration",
        "keep the design sound / control engineering change / judge the technical risk",
        holds="program readiness",
        needs="contracts security budget",
    ),
    role(
        "A",
        "Personnel Officer / Manpower Analyst / Force Management Chief",
        "personnel_management manpower_planning force_management_chief",
        "keep units manned / protect our people / judge the personnel impact",
        holds="personnel logistics",
        needs="budget readiness security",
    ),
    role(
        "B",
        "Contracting Officer / Procurement Analyst / Acquisition Contracts Manager",
        "contracting_office acquisition_contracts procurement_analyst",
        "get a fair deal for the government / keep the contract lawful / negotiate sound terms",
        holds="contracts readiness",
        needs="program budget logistics",
    ),
    role(
        "B",
        "Program Manager / Deputy Program Executive / Acquisition Program Lead",
        "program_management acquisition_program",
        "deliver the program on cost and schedule / protect the milestone / keep the program funded",
        holds="program budget",
        needs="contracts readiness security",
    ),
    role(
        "B",
        "Budget Analyst / Comptroller / Financial Management Officer",
        "budget_analysis financial_management comptroller",
        "keep spending within the law / make the budget work / find money for the plan",
        holds="budget contracts",
        needs="program personnel logistics",
    ),
    role(
        "B",
        "Security Manager / Counterintelligence Officer / Information Security Officer",
        "security_management information_security counterintelligence_officer",
        "protect classified information / keep people and systems trustworthy / judge the security risk",
        holds="security logistics",
        needs="personnel contracts program",
    ),
    role(
        "B",
        "Legal Advisor / Staff Judge Advocate / Ethics Counselor",
        "legal_advisory ethics_counsel staff_judge_advocate",
        "keep the plan lawful / protect the command from legal risk / advise on ethics",
        holds="security contracts",
        needs="budget personnel program",
    ),
    role(
        "B",
        "Industrial Base Analyst / Supplier Quality Manager / Production Oversight Lead",
        "industrial_base supplier_quality production_oversight_lead",
        "keep suppliers healthy / protect production quality / judge supplier risk",
        holds="contracts logistics",
        needs="program readiness budget",
    ),
]
