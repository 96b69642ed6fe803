// The upstream's vocabulary as the sandbox models it: the values its wire fields take, written here from the spec
// (spec/upstream-spec.txt) and the facts about the real service (spec/upstream-facts.md), not taken from Linkdesk. A
// model that shared the client's lists could never disagree with it (docs/decisions/sandbox-model.md).

/** PublicLinkState (spec "Link object"; facts §3.3). */
export const LINK_STATES = ["connecting", "awaiting_token_exchange", "connected", "deleted", "error"] as const;
export type LinkState = (typeof LINK_STATES)[number];

/** PublicLinkError, the link's `error_code` (spec "Link object"; facts §3.3): 6 values in the 2024 SDK, 11 in 2025. */
export const LINK_ERROR_CODES = [
  "system_error",
  "provider_error",
  "institution_error",
  "user_error",
  "auth_expired",
  "no_accounts",
  "user_setup_required",
  "invalid_credentials",
  "user_oauth_denied",
  "user_input_incorrect",
  "incomplete",
] as const;
export type LinkErrorCode = (typeof LINK_ERROR_CODES)[number];

/** What the upstream documents each link error code to mean (facts §3.3, DOC /api/reference/link-errors). */
export const LINK_ERROR_MEANINGS: Record<LinkErrorCode, string> = {
  system_error: "An error on the service's side; it is being looked into.",
  provider_error: "The data provider is having an outage.",
  institution_error: "The institution is having an outage.",
  user_error: "The end user failed or abandoned authentication, or it timed out.",
  auth_expired: "The link's authentication expired; the end user must reconnect.",
  no_accounts: "No accounts with data for the requested products.",
  user_setup_required: "The end user must take an action at the institution.",
  invalid_credentials: "The credentials are no longer valid.",
  user_oauth_denied: "The end user denied access at the institution.",
  user_input_incorrect: "The end user's answer (MFA, security question) was incorrect.",
  incomplete: "Waiting on the end user; linking can be resumed later.",
};

/** Product (spec "Link object" products and available_products; facts §3.3). */
export const PRODUCTS = [
  "accounts",
  "account_numbers",
  "identity",
  "transactions",
  "investments",
  "enrichment",
] as const;
export type Product = (typeof PRODUCTS)[number];

/** LinkProductError, a product status's `error_code` (facts §3.3; `invalid_credentials` was removed 2025-05). */
export const PRODUCT_ERROR_CODES = [
  "rate_limit",
  "auth_expired",
  "not_supported",
  "timeout",
  "unknown",
  "no_accounts",
  "institution_error",
  "no_permission",
] as const;
export type ProductErrorCode = (typeof PRODUCT_ERROR_CODES)[number];

/** LinkProductState, the steps a `link.product_refresh` webhook reports (facts §3.3, §11). */
export const LINK_PRODUCT_STATES = ["pending", "in_progress", "completed", "failed"] as const;
export type LinkProductState = (typeof LINK_PRODUCT_STATES)[number];

/**
 * Provider (facts §3.3). The spec says eight identifiers without spelling them; the newest SDKs spell six. `sophtron`
 * was in the enum until 2024-08 (RB@7020cf9) and is gone since: a client that names it is refused (see DROPPED_PROVIDERS).
 */
export const PROVIDERS = ["moneykit", "finicity", "plaid", "yodlee", "mx", "akoya"] as const;
export type Provider = (typeof PROVIDERS)[number];

/** Providers the facts record as removed from the enum, with when (facts §3.3, §15). */
export const DROPPED_PROVIDERS: Readonly<Record<string, string>> = { sophtron: "2024-08" };

/** TransactionType (facts §5.1): `credit` is money in, `debit` money out, for every account type. */
export const TRANSACTION_TYPES = ["credit", "debit"] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

/** Country (facts §3.3, §13): GB, not UK. */
export const COUNTRIES = ["US", "GB", "CA"] as const;
export type Country = (typeof COUNTRIES)[number];

/** The events a link's webhook hears (facts §11). */
export const WEBHOOK_EVENTS = ["link.state_changed", "link.product_refresh", "transactions.updates_available"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/**
 * What POST /webhooks/test/link/{id} may ask for (facts §11 WebhookLinkTestEvent): `product.state_changed` among them,
 * although no webhook the upstream sends carries that name.
 */
export const TEST_WEBHOOK_EVENTS = [
  "link.state_changed",
  "transactions.updates_available",
  "product.state_changed",
  "link.product_refresh",
] as const;
export type TestWebhookEvent = (typeof TEST_WEBHOOK_EVENTS)[number];

/**
 * The enrichment taxonomy (spec "Category values", "Subcategory values"; facts §5.3): 23 categories, 127 subcategories.
 * The spec does not say which subcategory belongs to which category; the SDK's subcategory enum is laid out in blocks
 * in the categories' order, each holding `other_<category>`, and the facts infer the grouping from that layout.
 * `petrol_and_vehicle_charging` sits out of alphabetical order at the end of transport upstream: a later addition.
 */
export const TAXONOMY = {
  banking: [
    "account_fees_and_other_bank_charges",
    "atm_fees",
    "cash_withdrawals",
    "currency_exchange_and_fees",
    "interest",
    "nsf_and_overdraft_fees",
    "other_banking",
    "outgoing_checks",
    "overdraft_protection",
    "refunds_and_reversals",
    "unpaid_transactions",
  ],
  borrowing_and_loans: [
    "buy_now_pay_later",
    "car_payment",
    "cash_advance_loans",
    "credit_cards",
    "debt_management",
    "loan_incoming",
    "loan_repayment",
    "other_borrowing_and_loans",
    "student_loan",
    "vehicle_loan",
  ],
  charity: ["charity", "other_charity"],
  dependent_costs: ["child_support", "childcare", "childrens_expenses", "other_dependent_costs"],
  education: ["driving_lessons", "other_education", "university_and_tuition"],
  entertainment: [
    "books_and_reading",
    "cinema",
    "gaming",
    "leisure_and_amusement_activities",
    "other_entertainment",
    "other_events",
    "sport_events",
    "theatre_concerts_and_tickets",
  ],
  expenses: [
    "business_expenses",
    "financial_and_legal_expenses",
    "other_expenses",
    "other_memberships_and_services",
    "postage_and_office_supplies",
  ],
  food_and_drink: [
    "bars_and_pubs",
    "coffee",
    "convenience_stores",
    "eating_out_and_takeaways",
    "groceries",
    "other_eating_out",
    "other_food_and_drink",
    "speciality_food_and_drink",
  ],
  gambling_and_lotteries: ["gambling_and_betting", "lotteries_and_sweepstakes", "other_gambling_and_lotteries"],
  general: ["other_general"],
  health_and_personal_care: [
    "beauty",
    "dental",
    "gym_and_fitness",
    "healthcare",
    "other_health_and_personal_care",
    "optical",
    "pharmacies_and_health_products",
    "sport_accessories_and_equipment",
  ],
  home: ["furniture", "gardening", "home_maintenance", "household_goods", "laundry", "other_home", "pets"],
  income: [
    "benefits_and_social_security",
    "child_support_income",
    "crypto_platform_incoming",
    "deposits",
    "employment_income",
    "investment_income",
    "other_income",
    "pension_income",
    "rental_income",
  ],
  insurance: [
    "business_insurance",
    "health_and_life_insurance",
    "home_insurance",
    "other_insurance",
    "pet_insurance",
    "travel_insurance",
    "vehicle_insurance",
  ],
  media_and_telecoms: [
    "broadband_phone_tv",
    "digital_media_and_software",
    "other_media_and_telecoms",
    "tv_streaming_services",
  ],
  mortgage_and_rent: ["mortgage", "other_mortgage_and_rent", "rent"],
  pensions_savings_and_investments: [
    "crypto_platform_outgoing",
    "investments",
    "pensions",
    "other_pensions_savings_and_investments",
    "savings",
  ],
  shopping: [
    "clothing_and_accessories",
    "department_stores",
    "electronics_appliances_and_technology",
    "flowers_and_gifts",
    "general_online_shopping",
    "hobbies",
    "other_shopping",
    "smoking_and_vaping",
  ],
  taxes: ["federal_tax", "other_taxes"],
  transfers: ["internal_transfers", "other_transfers", "transfers_in", "transfers_out"],
  transport: [
    "other_transport",
    "parking_and_tolls",
    "public_transport",
    "taxi",
    "vehicle",
    "vehicle_fuel_and_charging",
    "vehicle_rental",
    "petrol_and_vehicle_charging",
  ],
  travel: ["flights_and_airport_expenses", "holiday_and_travel_expenses", "other_travel"],
  utilities: ["other_utilities", "utilities_energy", "utilities_water_and_sewage", "waste_and_recycling"],
} as const;

type Taxonomy = typeof TAXONOMY;
export type Category = keyof Taxonomy;
export type Subcategory = Taxonomy[Category][number];

export const CATEGORIES = Object.keys(TAXONOMY) as Category[];
/** In the spec's order: the category blocks in category order. */
export const SUBCATEGORIES: readonly Subcategory[] = CATEGORIES.flatMap((category) => TAXONOMY[category]);

const parentOf = new Map<string, Category>(
  CATEGORIES.flatMap((category) => TAXONOMY[category].map((subcategory) => [subcategory, category] as const)),
);

export function isCategory(value: string): value is Category {
  return Object.hasOwn(TAXONOMY, value);
}

export function isSubcategory(value: string): value is Subcategory {
  return parentOf.has(value);
}

/** The category a subcategory belongs to; undefined for a value outside today's taxonomy. */
export function categoryOf(subcategory: string): Category | undefined {
  return parentOf.get(subcategory);
}

export function subcategoriesOf(category: Category): readonly Subcategory[] {
  return TAXONOMY[category];
}

/**
 * The taxonomy's history (facts §5.3, DOC /api/reference/transactions-enrichment): on 2025-01-13 two banking
 * subcategories were renamed and one of borrowing_and_loans removed. Transactions categorised before the change keep
 * their old values, so a client reads these pairs on old data for good.
 */
export const TAXONOMY_CHANGED_ON = "2025-01-13";
export const PRE_2025_PAIRS: readonly { category: Category; subcategory: string; became: Subcategory | null }[] = [
  { category: "banking", subcategory: "overdraft_fees", became: "nsf_and_overdraft_fees" },
  {
    category: "banking",
    subcategory: "bank_fees_and_currency_exchange",
    became: "account_fees_and_other_bank_charges",
  },
  { category: "borrowing_and_loans", subcategory: "deferred_bills", became: null },
];
