"""Education: a university and its district partners. Cluster A is academic, cluster B operations."""

from scenarios.generate.banks import role

UNITS = """
north campus / south campus / downtown campus / online division / evening programs /
graduate school / undergraduate college / science faculty / arts faculty / business school /
engineering school / nursing school / law school / medical school / library system /
residence halls / athletics department / continuing education / community college /
international office / research park / teacher college / honors college / summer session /
extension centers
"""

# Endings for generated organisation names ({org}) in this sector.
ORG_TAILS = [
    "Learning",
    "Education",
    "Campus Services",
    "Partners",
    "Solutions",
    "Consulting",
    "Builders",
    "Dining",
    "Software",
]

DECISIONS = [
    (
        "A",
        "launch an online {master's|certificate} program in {data analytics|nursing|supply chain management}",
    ),
    (
        "A",
        "close the {geology|classics|music theory} department and fold its courses into a larger school",
    ),
    ("A", "make test-optional admissions permanent"),
    ("A", "cap enrollment in the {computer science|nursing} major"),
    ("A", "move first-year writing courses to a {hybrid|fully online} format"),
    ("A", "replace letter grades with pass or fail in introductory courses"),
    ("A", "switch the partner school district to a shorter school week"),
    ("A", "extend the school day at the {middle schools|elementary schools}"),
    ("A", "adopt a new {math|literacy} curriculum across the district"),
    ("A", "offer a tuition guarantee to incoming {transfer|first-generation} students"),
    ("A", "expand dual-enrollment courses with local high schools"),
    ("B", "renew the learning management system contract or switch to a competitor"),
    ("B", "outsource {dining|custodial|bookstore} services to a national vendor"),
    ("B", "raise tuition for {out-of-state|graduate} students"),
    ("B", "build a new {residence hall|science building} with public-private financing"),
    ("B", "pay the ransom after an attack on the student records system"),
    ("B", "sell an underused satellite campus"),
    ("B", "settle a discrimination lawsuit filed by a former student before trial"),
    ("B", "move athletics to a lower-cost conference"),
    ("B", "freeze hiring of {administrative|non-tenure-track} staff"),
    ("B", "close a budget gap by merging administrative offices"),
    ("AB", "adopt an AI tool for student advising across campus"),
    ("AB", "merge with a nearby small college"),
    ("AB", "cut the {men's tennis|women's golf} program"),
    ("AB", "start an accelerated nursing program"),
    ("AB", "replace campus police with a contracted security service"),
    ("AB", "give faculty a retention raise ahead of contract talks"),
    ("AB", "provide student mental health care through a telehealth vendor"),
]

TOPICS = {
    "enrolment": """
        count 1100-9800 | applications | students applying
        rate 20.0-69.9 | yield | admitted students who enrol
        rate 70.0-94.9 | first-year retention | students coming back
        count 120-900 | transfer students | students arriving from elsewhere
        !offer 500k-6M | recruitment agency | an agent's fee for students
        date | census | the official head count
    """,
    "teaching": """
        count 110-640 | course sections | classes on offer
        rate 10.0-39.9 | adjunct share | part-time teaching
        rate 5.0-24.9 | course failure | students failing classes
        count 120-900 | waitlisted seats | students stuck on waitlists
        !people | faculty grievance | an unhappy professor
        !finding | grade inflation | suspicious grading
        date | curriculum review | the program review
    """,
    "finance": """
        cost 5M-90M | tuition revenue | fee income
        rate 20.0-59.9 | tuition discount | price cuts through aid
        cost 1M-20M | deferred maintenance | postponed repairs
        cost 2M-30M | endowment draw | money from the endowment
        !offer 1M-30M | naming gift | a donor's conditional gift
        date | budget approval | the board's budget vote
    """,
    "students": """
        count 110-900 | counselling appointments | students seeking help
        rate 5.0-29.9 | food insecurity | students going hungry
        count 120-700 | conduct cases | disciplinary cases
        !finding | campus safety | a safety incident
        !people | harassment complaint | an allegation of harassment
        rate 50.0-94.9 | housing occupancy | beds in use
        date | orientation | the welcome week
    """,
    "research": """
        cost 1M-40M | grant awards | research funding
        count 110-620 | proposals submitted | grant applications
        rate 10.0-39.9 | indirect cost recovery | overhead on grants
        !finding | research misconduct | a questioned study
        !people | lab closure | a researcher losing funding
        date | grant deadline | the funding deadline
    """,
    "digital": """
        count 110-980 | learning platform outages | downtime of the course site
        rate 40.0-94.9 | online course completion | students finishing online
        cost 300k-6M | software licences | campus software
        !finding | student data breach | exposed student records
        !offer 400k-7M | platform vendor | a vendor's bid for the learning system
        date | system migration | the move to new software
    """,
    "staff": """
        rate 6.0-24.9 | staff turnover | staff leaving
        count 110-640 | open positions | unfilled posts
        cost 1M-20M | salary pool | pay rises
        !people | union organising | a union drive
        !count 110-480 | proposed layoffs | possible cuts
        date | contract negotiation | the next bargaining round
    """,
}

# Criteria the goal line may name for each topic: abstract concerns, never an item's subject.
THEMES = {
    "enrolment": "enrolment outlook / student demand / recruitment pressure",
    "teaching": "teaching capacity / academic quality / instructional load",
    "finance": "financial sustainability / budget impact / affordability",
    "students": "student wellbeing / student support / campus life",
    "research": "research standing / research funding / scholarly output",
    "digital": "digital readiness / technology risk / online learning quality",
    "staff": "staff relations / workforce stability / employee morale",
}

ROLES = [
    role(
        "A",
        "Dean of Faculty / Associate Dean / Department Chair",
        "academic_affairs faculty_affairs associate_dean department_chair",
        "protect academic quality / speak for the faculty / judge the plan's effect on teaching",
        holds="teaching staff",
        needs="finance enrolment research",
    ),
    role(
        "A",
        "Registrar / Academic Records Manager / Scheduling Coordinator",
        "registrar_office academic_records scheduling_coordinator",
        "keep records and schedules right / make sure courses run / judge the timetable impact",
        holds="teaching enrolment",
        needs="digital students staff",
    ),
    role(
        "A",
        "Student Affairs Director / Dean of Students / Student Success Manager",
        "student_affairs student_success",
        "look after students / keep students enrolled and well / speak for student welfare",
        holds="students enrolment",
        needs="teaching finance digital",
    ),
    role(
        "A",
        "Research Director / Sponsored Programs Manager / Research Compliance Officer",
        "research_office sponsored_programs",
        "keep research funded and honest / grow research income / protect grant compliance",
        holds="research teaching",
        needs="finance staff digital",
    ),
    role(
        "A",
        "Online Learning Director / Instructional Designer / Learning Technology Manager",
        "online_learning learning_technology instructional_designer",
        "make online learning work / keep the course platform running / improve digital courses",
        holds="digital staff",
        needs="teaching students finance",
    ),
    role(
        "A",
        "Library Director / Collections Manager / Research Librarian",
        "library_services library_collections",
        "keep the library useful / protect collections / support research and teaching",
        holds="digital research",
        needs="finance teaching students",
    ),
    role(
        "B",
        "Finance Director / University Controller / Budget Manager",
        "university_finance budget_planning",
        "make the numbers work / protect the budget / judge whether the plan is affordable",
        holds="finance digital",
        needs="enrolment staff research",
    ),
    role(
        "B",
        "Enrolment Manager / Admissions Director / Recruitment Officer",
        "enrolment_management admissions_office",
        "hit the enrolment target / recruit the right students / protect the incoming class",
        holds="enrolment research",
        needs="finance students teaching",
    ),
    role(
        "B",
        "Human Resources Director / Employee Relations Manager / Benefits Manager",
        "human_resources employee_relations benefits_manager",
        "understand what the plan means for staff / keep relations calm / hire the people needed",
        holds="staff enrolment",
        needs="finance teaching students",
    ),
    role(
        "B",
        "Campus Facilities Director / Space Planning Manager / Campus Operations Manager",
        "campus_facilities space_planning",
        "make the buildings work for the plan / keep the campus running / plan the space",
        holds="finance students",
        needs="enrolment teaching digital",
    ),
    role(
        "B",
        "General Counsel / Compliance Officer / Equity Compliance Coordinator",
        "legal_counsel compliance_office",
        "keep the institution lawful / avoid legal trouble / protect students' rights",
        holds="students research",
        needs="staff digital finance",
    ),
    role(
        "B",
        "Advancement Director / Major Gifts Officer / Alumni Relations Manager",
        "advancement_office alumni_relations",
        "raise the money the plan needs / keep donors on side / grow alumni support",
        holds="finance teaching",
        needs="research students enrolment",
    ),
]
