"""Healthcare: a hospital system. Cluster A is clinical care, cluster B operations and finance."""

from scenarios.generate.banks import role

UNITS = """
north campus / east campus / west campus / south campus / rural campus / main hospital /
satellite hospital / riverside hospital / valley hospital / lakeside campus / night shift /
weekend shift / community hospital / teaching hospital / children's hospital / city clinics /
county clinics / suburban clinics / inpatient floors / outpatient centers / day surgery center /
hillside campus / harbor hospital / midtown campus / eastside clinics / westside clinics
"""

# Endings for generated organisation names ({org}) in this sector.
ORG_TAILS = [
    "Health",
    "Medical Group",
    "Care Partners",
    "Health Partners",
    "Clinical Services",
    "Diagnostics",
    "Staffing",
    "Labs",
    "Health Systems",
]

DECISIONS = [
    ("A", "open a {weekend|after-hours} infusion clinic at the {north|east|downtown} campus"),
    ("A", "launch a hospital-at-home program for {heart failure|COPD|post-surgical} patients"),
    (
        "A",
        "close the {pediatric|geriatric} inpatient unit and consolidate its beds at the main campus",
    ),
    (
        "A",
        "adopt a {nurse-led|pharmacist-led} sepsis screening protocol in the emergency department",
    ),
    ("A", "extend the {cardiac|orthopedic} surgery block schedule to Saturdays"),
    ("A", "join a regional {stroke|trauma} network as a spoke hospital"),
    ("A", "add a {behavioral health|substance use} crisis unit beside the emergency department"),
    ("A", "move the {oncology|rheumatology} clinic to a biosimilar-first formulary"),
    ("A", "offer self-scheduling to {medical-surgical|critical care} nurses"),
    ("A", "reopen the {maternity|labor and delivery} unit at the rural campus"),
    ("A", "bring hospitalist coverage in-house instead of using a contracted group"),
    ("B", "renew the {imaging|laboratory} equipment service contract with the incumbent vendor"),
    ("B", "move the {EHR|revenue cycle} platform to a hosted cloud model"),
    ("B", "outsource {medical coding|patient transport|food service} to an outside vendor"),
    ("B", "build a {medical office building|parking structure} on the hospital's west lot"),
    ("B", "accept a {value-based|capitated} contract offered by a regional health plan"),
    ("B", "acquire an independent {primary care|orthopedic} practice group"),
    ("B", "deploy an AI triage assistant in the patient portal"),
    ("B", "self-report a billing error to the {federal|state} program integrity office"),
    ("B", "join a group purchasing organization for {surgical supplies|pharmaceuticals}"),
    ("B", "refinance the system's outstanding bonds before the next rating review"),
    ("AB", "convert the {surgical|medical} step-down unit into an observation unit"),
    ("AB", "delay the {EHR|pharmacy system} upgrade until after the accreditation survey"),
    ("AB", "keep outpatient clinics open into the evening at the satellite locations"),
    ("AB", "pay retention bonuses to {ICU|emergency department} nurses this year"),
    ("AB", "partner with a retail chain to run {walk-in|urgent care} clinics"),
    ("AB", "sell the hospital's home health agency to a regional operator"),
    ("AB", "replace the nurse call system across {the inpatient floors|the surgical tower}"),
]

TOPICS = {
    "staffing": """
        rate 8.0-17.9 | nurse vacancy | empty nursing posts
        cost 400k-6M | agency nursing | temporary nurses
        count 900-9000 | nursing overtime hours | extra nurse shifts
        rate 12.0-29.9 | first-year nurse turnover | new nurses quitting
        count 110-640 | open clinical requisitions | unfilled clinical jobs
        !people | pending resignation | a clinician about to quit
        !count 140-900 | union card signatures | staff organising
        date | float pool expansion | extra relief nurses
    """,
    "quality": """
        rate 0.5-3.9 | surgical site infection | post-operative wound infections
        rate 9.0-18.9 | readmission | patients bouncing back
        rate 60.0-94.9 | hand hygiene compliance | handwashing by staff
        count 120-880 | reported near misses | logged close calls
        !finding | medication error | drug mistakes
        !finding | sepsis bundle | sepsis care delivery
        !people | peer review referral | a doctor under scrutiny
        date | accreditation survey | the surveyors' visit
    """,
    "flow": """
        count 1200-4800 | boarding hours | patients waiting for beds
        rate 2.0-7.9 | left-without-being-seen | patients walking out
        count 240-980 | elective cases waiting | unscheduled operations
        rate 14.0-39.9 | discharge-before-noon | early discharges
        count 900-3600 | avoidable bed days | placement delays
        rate 62.0-88.9 | operating room utilisation | theatre use
        !count 110-460 | ambulance diversion hours | turned-away ambulances
        date | bed capacity review | the bed count review
    """,
    "pharmacy": """
        cost 2M-30M | inpatient drug | medicine purchases
        count 110-260 | short-supply products | scarce medicines
        rate 4.0-19.9 | biosimilar uptake | cheaper biologics
        cost 300k-4M | sterile compounding | intravenous preparation
        !offer 500k-6M | formulary rebate | a drug maker's discount
        !finding | controlled substance count | missing opioids
        count 150-900 | pharmacist interventions | pharmacist corrections
    """,
    "finance": """
        rate 0.5-4.9 | operating margin | operating profit
        cost 20M-90M | capital | investment funds
        rate 8.0-15.9 | claim denial | rejected claims
        cost 6M-24M | bad debt | unpaid bills
        count 1400-5200 | uncoded charts | unbilled records
        !offer 2M-40M | payer contract | the big insurer's demands
        !finding | overbilling | inflated claims
        date | bond refinancing | debt refinancing
    """,
    "systems": """
        count 110-620 | system interfaces | system links
        rate 0.2-2.9 | record system downtime | record system outages
        cost 2M-14M | technology project | digital projects
        count 3100-9800 | help desk tickets | clinician tech complaints
        !finding | phishing | a near-miss cyberattack
        !count 110-380 | unsupported servers | outdated servers
        !offer 900k-5M | vendor exit | leaving our software vendor
        date | system upgrade | the software change
    """,
    "compliance": """
        count 110-480 | open corrective actions | unfinished remediation
        rate 72.0-94.9 | annual attestation | compliance sign-offs
        count 110-340 | hotline reports | ethics line calls
        !finding | privacy breach | leaked patient records
        !people | whistleblower complaint | an insider's allegation
        !finding | billing self-disclosure | a possible overpayment
        date | regulator follow-up | the regulators' return
    """,
    "facilities": """
        cost 12M-48M | deferred maintenance | postponed repairs
        cost 3M-9M | utilities | energy bills
        rate 61.0-88.9 | generator load test | backup power
        !finding | fire egress | fire safety
        !offer 8M-29M | renovation construction | the cheapest builder
        !finding | water system | water contamination
        date | phased renovation start | the building work
    """,
    "strategy": """
        rate 18.0-39.9 | inpatient market share | our local share
        count 4200-19000 | new residents | population growth
        rate 21.0-44.9 | referral leakage | lost referrals
        !offer 40M-180M | practice acquisition | buying a practice
        !people | merger liaison | the merger talks
        date | competitor tower opening | a rival's new tower
    """,
}

# Criteria the goal line may name for each topic: abstract concerns, never an item's subject.
THEMES = {
    "staffing": "nurse staffing / workforce supply / staffing pressure",
    "quality": "patient safety / quality of care / clinical outcomes",
    "flow": "patient flow / bed availability / access and throughput",
    "pharmacy": "medication supply / pharmacy workload / drug spending",
    "finance": "financial impact / affordability / the revenue picture",
    "systems": "IT readiness / technology risk / systems stability",
    "compliance": "regulatory exposure / compliance risk / legal and regulatory risk",
    "facilities": "facility condition / building readiness / physical plant risk",
    "strategy": "market position / competitive pressure / strategic fit",
}

ROLES = [
    role(
        "A",
        "Nurse Manager / Director of Nursing / Nursing Supervisor",
        "nursing_workforce patient_care nurse_manager",
        "keep nurse staffing safe through the change / protect bedside care / make sure the nurses can carry the plan",
        holds="staffing quality",
        needs="flow finance facilities",
    ),
    role(
        "A",
        "Emergency Medicine Physician / Emergency Department Director / Emergency Care Manager",
        "emergency_care emergency_medicine",
        "keep the emergency department safe and moving / cut waiting for emergency patients / judge what the plan does to emergency care",
        holds="flow quality",
        needs="staffing systems facilities",
    ),
    role(
        "A",
        "Medical Staff Director / Medical Quality Officer / Physician Advisor",
        "medical_staff medical_quality physician_advisor",
        "judge what the plan means for physicians and outcomes / protect the quality of medical care / speak for the medical staff",
        holds="quality strategy",
        needs="staffing flow pharmacy",
    ),
    role(
        "A",
        "Pharmacy Manager / Clinical Pharmacist / Pharmacy Operations Director",
        "pharmacy_services pharmacy_budget",
        "keep medications safe, available and affordable / protect the drug budget / make sure dosing stays safe",
        holds="pharmacy systems",
        needs="finance quality compliance",
    ),
    role(
        "A",
        "Infection Prevention Manager / Hospital Epidemiologist / Infection Control Nurse",
        "infection_prevention infection_control hospital_epidemiologist",
        "keep infection risk under control / stop avoidable infections / judge the infection risk of the plan",
        holds="quality pharmacy",
        needs="facilities flow staffing",
    ),
    role(
        "A",
        "Surgical Services Director / Perioperative Manager / Operating Room Coordinator",
        "surgical_services perioperative_services operating_room_coordinator",
        "keep the operating rooms productive and safe / protect the surgical schedule / judge the plan's effect on surgery",
        holds="flow facilities",
        needs="staffing pharmacy finance",
    ),
    role(
        "A",
        "Case Management Director / Care Coordination Manager / Discharge Planning Lead",
        "case_management care_coordination discharge_planning_lead",
        "get patients to the right place at the right time / shorten stays without harm / smooth discharges",
        holds="flow staffing",
        needs="finance quality strategy",
    ),
    role(
        "B",
        "Finance Director / Hospital Controller / Financial Planning Manager",
        "hospital_finance financial_planning",
        "protect the system's finances / make the numbers work / judge whether the plan is affordable",
        holds="finance pharmacy",
        needs="flow staffing facilities",
    ),
    role(
        "B",
        "Revenue Cycle Director / Patient Financial Services Manager / Billing Operations Lead",
        "revenue_cycle patient_financial_services billing_operations_lead",
        "make sure the plan gets paid for / keep collections healthy / protect billing accuracy",
        holds="finance compliance",
        needs="flow systems quality",
    ),
    role(
        "B",
        "Information Technology Director / Clinical Systems Manager / Health Informatics Lead",
        "information_technology clinical_systems",
        "judge whether our systems can support the plan / keep clinical systems running / protect patient data",
        holds="systems facilities",
        needs="finance compliance flow",
    ),
    role(
        "B",
        "Compliance Officer / Regulatory Affairs Manager / Privacy Officer",
        "compliance_program regulatory_affairs privacy_officer",
        "keep the hospital on the right side of regulators / avoid regulatory trouble / protect patient privacy",
        holds="compliance strategy",
        needs="systems quality finance",
    ),
    role(
        "B",
        "Facilities Director / Construction Project Manager / Plant Operations Manager",
        "facilities_management construction_projects plant_operations_manager",
        "make the buildings work for the plan / keep the campus safe and running / plan the building work",
        holds="facilities systems",
        needs="finance flow quality",
    ),
    role(
        "B",
        "Human Resources Director / Workforce Planning Manager / Talent Acquisition Lead",
        "human_resources workforce_planning talent_acquisition_lead",
        "understand what the plan means for our workforce / hire the people the plan needs / keep staff turnover down",
        holds="staffing compliance",
        needs="finance strategy flow",
    ),
    role(
        "B",
        "Strategy Director / Business Development Manager / Planning Analyst",
        "strategic_planning business_development",
        "fit the plan into our long-term strategy / grow the system sensibly / read the market before we commit",
        holds="strategy staffing",
        needs="finance flow quality",
    ),
]
