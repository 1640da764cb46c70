"""Manufacturing: an industrial products company.

Cluster A is the plant floor, cluster B the business and support functions.
"""

from scenarios.generate.banks import role

UNITS = """
north plant / south plant / stamping plant / assembly plant / paint shop / machining cell /
foundry / molding line / packaging line / distribution center / tool room / warehouse /
second shift / third shift / mexico plant / ohio plant / poland plant / battery line /
weld shop / test lab / finishing area / press shop / electronics line / heat treat area /
receiving dock
"""

# Endings for generated organisation names ({org}) in this sector.
ORG_TAILS = [
    "Industries",
    "Manufacturing",
    "Metals",
    "Components",
    "Logistics",
    "Automation",
    "Plastics",
    "Freight",
    "Machining",
]

DECISIONS = [
    ("A", "add a third shift at the {stamping|molding|assembly} plant"),
    ("A", "recall the {brake caliper|pressure valve|battery pack} batch after field failures"),
    ("A", "install collaborative robots on the {packaging|welding} line"),
    ("A", "convert the {paint shop|heat treat line} to a lower-emission process"),
    ("A", "bring machining of a key component in-house"),
    ("A", "switch to a second resin supplier for the molded housings"),
    ("A", "shut down the oldest furnace for a full rebuild"),
    ("A", "move the {press|extrusion} lines to predictive maintenance"),
    ("A", "extend the preventive maintenance interval on the conveyors"),
    ("A", "launch the new model on the existing line instead of building a dedicated line"),
    ("A", "adopt statistical process control across the machining cells"),
    ("B", "relocate production of the {pump|motor} line to a lower-cost country"),
    ("B", "sign a long-term energy contract for the main plant"),
    ("B", "raise prices to the largest distributor to cover material costs"),
    ("B", "roll out a manufacturing execution system across all plants"),
    ("B", "accept a large order with penalties for late delivery"),
    ("B", "close the {oldest|smallest} warehouse and consolidate inventory"),
    ("B", "outsource {tooling repair|outbound logistics} to a contract partner"),
    ("B", "invest in on-site solar for the assembly plant"),
    ("B", "reopen the union contract a year early"),
    ("B", "dual-source the microcontroller used in every product"),
    ("AB", "pursue a new quality certification for the medical device market"),
    ("AB", "build inventory ahead of an expected port slowdown"),
    ("AB", "expand the plant instead of adding a contract manufacturer"),
    ("AB", "report a supplier's falsified test certificates to the customer"),
    ("AB", "delay the product launch to fix a tooling problem"),
    ("AB", "lift the overtime ban at the assembly plant"),
]

TOPICS = {
    "output": """
        count 1200-9800 | units shipped | finished goods out the door
        rate 55.0-89.9 | equipment effectiveness | how well the machines run
        count 110-900 | downtime hours | idle line time
        rate 70.0-98.9 | schedule attainment | hitting the build plan
        !finding | capacity study | what the lines can really do
        date | line changeover | the retooling
    """,
    "quality": """
        rate 0.2-4.9 | scrap | wasted material
        count 110-900 | customer returns | products sent back
        rate 80.0-99.5 | first-pass yield | parts right first time
        !finding | recall risk | a possible recall
        !finding | falsified inspection | doctored test records
        !people | quality escape | a defect that reached a customer
        date | certification audit | the quality audit
    """,
    "supply": """
        cost 1M-40M | raw materials | material purchases
        count 110-900 | late shipments | supplier delays
        rate 60.0-97.9 | supplier on-time delivery | suppliers keeping dates
        count 120-700 | parts on allocation | rationed components
        !offer 1M-30M | resupply contract | a supplier's new price
        !finding | supplier insolvency | a supplier in trouble
        date | contract renewal | the supplier renewal
    """,
    "safety": """
        rate 0.5-4.9 | recordable injury | workplace injuries
        count 110-600 | near misses | close calls
        !finding | machine guarding | unguarded machines
        !people | serious injury | a badly hurt worker
        rate 70.0-98.9 | safety training | completed safety courses
        date | safety inspection | the inspector's visit
    """,
    "cost": """
        cost 500k-9M | overtime | extra-hours pay
        cost 1M-20M | energy | power and gas
        rate 1.0-9.9 | cost variance | spending off plan
        cost 2M-40M | inventory | stock on hand
        !offer 2M-60M | automation | a robot integrator's quote
        date | budget lock | the cost plan deadline
    """,
    "workforce": """
        rate 5.0-29.9 | absenteeism | workers not showing up
        count 110-640 | open positions | unfilled jobs
        rate 10.0-39.9 | temp labour | agency workers
        !people | union steward | a union dispute
        !count 110-480 | planned layoffs | possible job cuts
        date | contract talks | the bargaining round
    """,
    "customers": """
        cost 5M-90M | order backlog | unfilled orders
        rate 80.0-99.5 | on-time shipment | deliveries on time
        count 110-900 | engineering change requests | customer design changes
        !offer 2M-60M | volume deal | a customer's price demand
        !people | customer escalation | an angry buyer
        date | launch | the new model start
    """,
}

# Criteria the goal line may name for each topic: abstract concerns, never an item's subject.
THEMES = {
    "output": "plant throughput / production capacity / line performance",
    "quality": "product quality / defect risk / conformance",
    "supply": "supply security / supplier reliability / material availability",
    "safety": "worker safety / injury risk / plant safety",
    "cost": "unit economics / cost pressure / spending discipline",
    "workforce": "labour relations / workforce stability / staffing levels",
    "customers": "customer commitments / demand outlook / customer satisfaction",
}

ROLES = [
    role(
        "A",
        "Plant Manager / Production Supervisor / Operations Manager",
        "plant_operations production_floor",
        "run the plant through the change / hit the production plan / protect output",
        holds="output cost",
        needs="supply workforce quality",
    ),
    role(
        "A",
        "Quality Manager / Quality Engineer / Inspection Supervisor",
        "quality_assurance quality_engineering inspection_supervisor",
        "keep quality under control / protect the customer from defects / judge the quality risk",
        holds="quality workforce",
        needs="output supply safety",
    ),
    role(
        "A",
        "Maintenance Manager / Reliability Engineer / Maintenance Planner",
        "maintenance_reliability equipment_maintenance",
        "keep the machines running / plan maintenance / judge equipment risk",
        holds="output safety",
        needs="cost supply workforce",
    ),
    role(
        "A",
        "Safety Manager / Environmental Health Officer / Safety Coordinator",
        "safety_management environmental_health",
        "keep people safe / keep us within safety law / judge the safety risk",
        holds="safety customers",
        needs="output workforce quality",
    ),
    role(
        "A",
        "Manufacturing Engineer / Process Engineer / Industrial Engineer",
        "manufacturing_engineering process_engineering",
        "make the process work / improve the lines / judge the engineering effort",
        holds="output quality",
        needs="cost customers supply",
    ),
    role(
        "A",
        "Production Scheduler / Materials Planner / Master Scheduler",
        "production_scheduling materials_planning",
        "build the schedule / keep materials flowing / balance the lines",
        holds="supply output",
        needs="customers workforce quality",
    ),
    role(
        "B",
        "Supply Chain Manager / Purchasing Manager / Supplier Development Engineer",
        "supply_chain purchasing_office",
        "secure the materials / keep suppliers reliable / get good prices",
        holds="supply workforce",
        needs="cost quality customers",
    ),
    role(
        "B",
        "Plant Controller / Cost Accountant / Finance Manager",
        "plant_finance cost_accounting",
        "make the numbers work / control costs / judge whether the plan pays",
        holds="cost quality",
        needs="output supply workforce",
    ),
    role(
        "B",
        "Human Resources Manager / Labor Relations Manager / Workforce Planner",
        "human_resources labor_relations workforce_planner",
        "understand what the plan means for workers / keep labour relations calm / staff the lines",
        holds="workforce quality",
        needs="safety output cost",
    ),
    role(
        "B",
        "Sales Manager / Key Account Manager / Customer Service Manager",
        "customer_sales account_management",
        "keep customers supplied / protect the order book / speak for the customer",
        holds="customers safety",
        needs="output quality supply",
    ),
    role(
        "B",
        "Logistics Manager / Warehouse Manager / Distribution Supervisor",
        "logistics_operations warehouse_management distribution_supervisor",
        "get products out on time / keep the warehouse working / control freight",
        holds="supply customers",
        needs="output cost workforce",
    ),
    role(
        "B",
        "Environmental Compliance Manager / Sustainability Manager / Regulatory Specialist",
        "environmental_compliance sustainability_program regulatory_specialist",
        "keep the plant within its permits / cut emissions / judge regulatory risk",
        holds="safety cost",
        needs="output supply quality",
    ),
]
