"""Finance: a regional bank and its investment arm. Cluster A is banking, cluster B control."""

from scenarios.generate.banks import role

UNITS = """
retail bank / private bank / commercial lending / mortgage desk / treasury desk /
trading floor / wealth unit / card business / small business lending / north region /
south region / west region / east region / branch network / digital bank / asset management arm /
insurance arm / leasing unit / payments division / corporate banking / custody unit /
collections team / fixed income desk / equities desk / capital markets group
"""

# Endings for generated organisation names ({org}) in this sector.
ORG_TAILS = [
    "Capital",
    "Bancorp",
    "Partners",
    "Financial",
    "Advisors",
    "Holdings",
    "Payments",
    "Lending",
    "Asset Management",
]

DECISIONS = [
    (
        "A",
        "approve a {term loan|credit line increase} for a mid-sized {food distributor|logistics company}",
    ),
    ("A", "restructure a troubled commercial real estate loan instead of foreclosing"),
    ("A", "launch a {high-yield savings|small-business checking} product"),
    ("A", "tighten underwriting standards for {auto|personal} loans"),
    ("A", "sell a portfolio of nonperforming {mortgages|credit card accounts}"),
    ("A", "hedge the bank's interest rate exposure with {swaps|a securities repositioning}"),
    ("A", "raise the deposit rate paid to {business|retail} customers"),
    ("A", "increase the bank's hold in a syndicated leveraged loan"),
    ("A", "enter the {equipment leasing|trade finance} business"),
    ("A", "cut the dividend to rebuild capital"),
    ("A", "open a wealth management office in a new city"),
    ("B", "exit a correspondent banking relationship after repeated monitoring alerts"),
    ("B", "replace the core banking platform with a cloud-based system"),
    ("B", "outsource {fraud monitoring|call center operations} to a third party"),
    ("B", "partner with a fintech to offer {point-of-sale|embedded} lending"),
    ("B", "close {rural|underperforming} branches and move customers to digital channels"),
    ("B", "file a suspicious activity report and exit a {cash-intensive|crypto-related} client"),
    ("B", "settle a regulatory inquiry into {overdraft|debt collection} practices"),
    ("B", "adopt a machine learning model for credit decisions"),
    ("B", "move part of the back-office operations offshore"),
    ("AB", "acquire a small community bank in a neighboring market"),
    ("AB", "delay the mobile app relaunch until fraud controls are upgraded"),
    ("AB", "introduce fee-free overdraft for low-balance accounts"),
    ("AB", "expand lending to {cannabis-adjacent|digital asset} businesses"),
    ("AB", "issue subordinated debt to fund loan growth"),
    ("AB", "launch a green mortgage program with discounted rates"),
    ("AB", "stop offering {payday-style|short-term} consumer loans"),
]

TOPICS = {
    "credit": """
        rate 0.5-4.9 | non-performing loan | bad loans
        count 110-900 | watch list credits | borrowers under watch
        cost 2M-40M | loan loss provision | reserves for bad loans
        rate 60.0-94.9 | sector exposure | concentration in a single industry
        !finding | underwriting exception | loans that broke the rules
        !people | borrower default | a client on the brink
        date | credit committee | the next credit meeting
    """,
    "markets": """
        cost 1M-30M | trading revenue | desk earnings
        rate 1.0-9.9 | value at risk utilisation | the risk limit in use
        count 110-900 | failed trades | trades that did not settle
        !finding | limit breach | a trader over the limit
        !offer 5M-90M | block trade | a large client order
        date | rate decision | the central bank meeting
    """,
    "capital": """
        rate 10.0-15.9 | core capital ratio | the capital buffer
        rate 100.0-180.0 | liquidity coverage | cash cover for outflows
        cost 10M-90M | funding | money raised from markets
        !finding | stress test | the bank's stress results
        !offer 20M-90M | debt issuance | new bonds the bank could sell
        date | rating review | the agencies' next verdict on our credit
    """,
    "compliance": """
        count 110-900 | suspicious activity reports | flagged transactions
        rate 70.0-98.9 | know-your-customer refresh | up-to-date client files
        count 120-700 | sanctions alerts | possible sanctions hits
        !finding | anti-money-laundering | laundering controls
        !people | whistleblower | an employee's complaint
        date | regulatory exam | the examiners' visit
    """,
    "clients": """
        cost 20M-90M | deposits | customer money held
        rate 2.0-14.9 | client attrition | clients leaving
        count 1100-9600 | new accounts | sign-ups
        rate 30.0-79.9 | digital adoption | online banking use
        !offer 500k-8M | relationship pricing | a big client's fee demands
        !count 110-800 | complaints | unhappy customers
        date | product launch | the new product release
    """,
    "operations": """
        cost 1M-20M | operations | running the back office
        count 110-980 | manual reconciliations | hand-matched records
        rate 0.1-2.9 | payment exceptions | payments that fail
        !finding | system outage | a core banking failure
        !offer 1M-20M | outsourcing | a vendor taking over processing
        date | core system cutover | the switch to the new system
    """,
    "people": """
        rate 8.0-24.9 | banker turnover | staff quitting
        cost 2M-40M | bonus pool | year-end awards
        count 110-640 | open roles | unfilled jobs
        !people | senior departure | a senior banker leaving
        !count 110-480 | planned job cuts | possible layoffs
        date | compensation review | the pay round
    """,
}

# Criteria the goal line may name for each topic: abstract concerns, never an item's subject.
THEMES = {
    "credit": "credit risk / asset quality / loan book health",
    "markets": "market risk / trading conditions / market exposure",
    "capital": "capital adequacy / balance sheet strength / liquidity position",
    "compliance": "regulatory exposure / conduct risk / financial crime risk",
    "clients": "client demand / customer relationships / franchise impact",
    "operations": "processing resilience / back-office capacity / processing risk",
    "people": "talent retention / staff morale / people risk",
}

ROLES = [
    role(
        "A",
        "Relationship Manager / Private Banker / Client Coverage Director",
        "client_relationships client_coverage private_banker",
        "keep the client relationship strong / win the business / speak for the client",
        holds="clients compliance",
        needs="credit markets capital",
    ),
    role(
        "A",
        "Credit Analyst / Credit Risk Officer / Underwriting Manager",
        "credit_risk credit_underwriting",
        "keep credit risk acceptable / underwrite the request soundly / protect the loan book",
        holds="credit markets",
        needs="clients capital compliance",
    ),
    role(
        "A",
        "Trader / Trading Desk Head / Market Risk Analyst",
        "trading_desk market_risk trader",
        "keep the desk profitable within limits / manage market risk / judge the trading impact",
        holds="markets people",
        needs="capital credit operations",
    ),
    role(
        "A",
        "Treasurer / Treasury Manager / Asset Liability Analyst",
        "treasury_management asset_liability",
        "keep the bank funded / protect liquidity / judge the balance-sheet impact",
        holds="capital compliance",
        needs="markets clients credit",
    ),
    role(
        "A",
        "Branch Manager / Retail Banking Director / Digital Banking Manager",
        "retail_banking digital_banking branch_manager",
        "keep customers served / grow the retail business / protect the branches",
        holds="clients operations",
        needs="compliance people credit",
    ),
    role(
        "A",
        "Wealth Advisor / Portfolio Manager / Investment Strategist",
        "wealth_advisory portfolio_management investment_strategist",
        "protect client portfolios / keep investment returns sound / judge the plan for investors",
        holds="markets clients",
        needs="capital compliance credit",
    ),
    role(
        "B",
        "Compliance Officer / Financial Crime Manager / Sanctions Analyst",
        "compliance_program financial_crime sanctions_analyst",
        "keep the bank within the rules / stop financial crime / avoid regulatory penalties",
        holds="compliance credit",
        needs="clients operations markets",
    ),
    role(
        "B",
        "Operations Manager / Payments Operations Lead / Back Office Director",
        "payment_operations back_office",
        "keep processing accurate / run the back office smoothly / protect payments",
        holds="operations credit",
        needs="compliance clients people",
    ),
    role(
        "B",
        "Finance Controller / Chief Accountant / Financial Planning Manager",
        "finance_control financial_planning chief_accountant",
        "make the numbers work / protect earnings / judge whether the plan pays",
        holds="capital people",
        needs="credit markets operations",
    ),
    role(
        "B",
        "Human Resources Director / Talent Manager / Reward Specialist",
        "human_resources talent_management reward_specialist",
        "understand what the plan means for staff / keep good bankers / set fair pay",
        holds="people credit",
        needs="capital clients operations",
    ),
    role(
        "B",
        "Internal Auditor / Audit Director / Controls Assurance Manager",
        "internal_audit controls_assurance",
        "make sure controls hold / test the plan's risks / report honestly to the board",
        holds="compliance operations",
        needs="credit markets people",
    ),
    role(
        "B",
        "Technology Risk Manager / Information Security Officer / Cyber Defense Lead",
        "technology_risk information_security cyber_defense_lead",
        "keep systems secure / manage technology risk / protect customer data",
        holds="operations markets",
        needs="compliance capital clients",
    ),
]
