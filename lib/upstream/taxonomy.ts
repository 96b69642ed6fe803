// The enrichment taxonomy as data. The spec lists the 23 categories and the 127 subcategories but not which
// subcategory belongs to which category; the subcategory list is laid out in blocks in the categories' order, each
// block holding `other_<category>`, so the grouping below follows that layout. `petrol_and_vehicle_charging` sits at
// the end of the transport block (out of alphabetical order upstream: a later addition).
// Pure data, no server-only import: the correction dropdown in the browser reads it too.

export const TAXONOMY = {
  banking: {
    label: "Banking",
    subcategories: {
      account_fees_and_other_bank_charges: "Account fees and other bank charges",
      atm_fees: "ATM fees",
      cash_withdrawals: "Cash withdrawals",
      currency_exchange_and_fees: "Currency exchange and fees",
      interest: "Interest",
      nsf_and_overdraft_fees: "NSF and overdraft fees",
      other_banking: "Other banking",
      outgoing_checks: "Outgoing checks",
      overdraft_protection: "Overdraft protection",
      refunds_and_reversals: "Refunds and reversals",
      unpaid_transactions: "Unpaid transactions",
    },
  },
  borrowing_and_loans: {
    label: "Borrowing and loans",
    subcategories: {
      buy_now_pay_later: "Buy now, pay later",
      car_payment: "Car payment",
      cash_advance_loans: "Cash advance loans",
      credit_cards: "Credit cards",
      debt_management: "Debt management",
      loan_incoming: "Loan incoming",
      loan_repayment: "Loan repayment",
      other_borrowing_and_loans: "Other borrowing and loans",
      student_loan: "Student loan",
      vehicle_loan: "Vehicle loan",
    },
  },
  charity: {
    label: "Charity",
    subcategories: { charity: "Charity", other_charity: "Other charity" },
  },
  dependent_costs: {
    label: "Dependent costs",
    subcategories: {
      child_support: "Child support",
      childcare: "Childcare",
      childrens_expenses: "Children's expenses",
      other_dependent_costs: "Other dependent costs",
    },
  },
  education: {
    label: "Education",
    subcategories: {
      driving_lessons: "Driving lessons",
      other_education: "Other education",
      university_and_tuition: "University and tuition",
    },
  },
  entertainment: {
    label: "Entertainment",
    subcategories: {
      books_and_reading: "Books and reading",
      cinema: "Cinema",
      gaming: "Gaming",
      leisure_and_amusement_activities: "Leisure and amusement activities",
      other_entertainment: "Other entertainment",
      other_events: "Other events",
      sport_events: "Sport events",
      theatre_concerts_and_tickets: "Theatre, concerts and tickets",
    },
  },
  expenses: {
    label: "Expenses",
    subcategories: {
      business_expenses: "Business expenses",
      financial_and_legal_expenses: "Financial and legal expenses",
      other_expenses: "Other expenses",
      other_memberships_and_services: "Other memberships and services",
      postage_and_office_supplies: "Postage and office supplies",
    },
  },
  food_and_drink: {
    label: "Food and drink",
    subcategories: {
      bars_and_pubs: "Bars and pubs",
      coffee: "Coffee",
      convenience_stores: "Convenience stores",
      eating_out_and_takeaways: "Eating out and takeaways",
      groceries: "Groceries",
      other_eating_out: "Other eating out",
      other_food_and_drink: "Other food and drink",
      speciality_food_and_drink: "Speciality food and drink",
    },
  },
  gambling_and_lotteries: {
    label: "Gambling and lotteries",
    subcategories: {
      gambling_and_betting: "Gambling and betting",
      lotteries_and_sweepstakes: "Lotteries and sweepstakes",
      other_gambling_and_lotteries: "Other gambling and lotteries",
    },
  },
  general: {
    label: "General",
    subcategories: { other_general: "Other general" },
  },
  health_and_personal_care: {
    label: "Health and personal care",
    subcategories: {
      beauty: "Beauty",
      dental: "Dental",
      gym_and_fitness: "Gym and fitness",
      healthcare: "Healthcare",
      other_health_and_personal_care: "Other health and personal care",
      optical: "Optical",
      pharmacies_and_health_products: "Pharmacies and health products",
      sport_accessories_and_equipment: "Sport accessories and equipment",
    },
  },
  home: {
    label: "Home",
    subcategories: {
      furniture: "Furniture",
      gardening: "Gardening",
      home_maintenance: "Home maintenance",
      household_goods: "Household goods",
      laundry: "Laundry",
      other_home: "Other home",
      pets: "Pets",
    },
  },
  income: {
    label: "Income",
    subcategories: {
      benefits_and_social_security: "Benefits and social security",
      child_support_income: "Child support income",
      crypto_platform_incoming: "Crypto platform incoming",
      deposits: "Deposits",
      employment_income: "Employment income",
      investment_income: "Investment income",
      other_income: "Other income",
      pension_income: "Pension income",
      rental_income: "Rental income",
    },
  },
  insurance: {
    label: "Insurance",
    subcategories: {
      business_insurance: "Business insurance",
      health_and_life_insurance: "Health and life insurance",
      home_insurance: "Home insurance",
      other_insurance: "Other insurance",
      pet_insurance: "Pet insurance",
      travel_insurance: "Travel insurance",
      vehicle_insurance: "Vehicle insurance",
    },
  },
  media_and_telecoms: {
    label: "Media and telecoms",
    subcategories: {
      broadband_phone_tv: "Broadband, phone and TV",
      digital_media_and_software: "Digital media and software",
      other_media_and_telecoms: "Other media and telecoms",
      tv_streaming_services: "TV streaming services",
    },
  },
  mortgage_and_rent: {
    label: "Mortgage and rent",
    subcategories: { mortgage: "Mortgage", other_mortgage_and_rent: "Other mortgage and rent", rent: "Rent" },
  },
  pensions_savings_and_investments: {
    label: "Pensions, savings and investments",
    subcategories: {
      crypto_platform_outgoing: "Crypto platform outgoing",
      investments: "Investments",
      pensions: "Pensions",
      other_pensions_savings_and_investments: "Other pensions, savings and investments",
      savings: "Savings",
    },
  },
  shopping: {
    label: "Shopping",
    subcategories: {
      clothing_and_accessories: "Clothing and accessories",
      department_stores: "Department stores",
      electronics_appliances_and_technology: "Electronics, appliances and technology",
      flowers_and_gifts: "Flowers and gifts",
      general_online_shopping: "General online shopping",
      hobbies: "Hobbies",
      other_shopping: "Other shopping",
      smoking_and_vaping: "Smoking and vaping",
    },
  },
  taxes: {
    label: "Taxes",
    subcategories: { federal_tax: "Federal tax", other_taxes: "Other taxes" },
  },
  transfers: {
    label: "Transfers",
    subcategories: {
      internal_transfers: "Internal transfers",
      other_transfers: "Other transfers",
      transfers_in: "Transfers in",
      transfers_out: "Transfers out",
    },
  },
  transport: {
    label: "Transport",
    subcategories: {
      other_transport: "Other transport",
      parking_and_tolls: "Parking and tolls",
      public_transport: "Public transport",
      taxi: "Taxi",
      vehicle: "Vehicle",
      vehicle_fuel_and_charging: "Vehicle fuel and charging",
      vehicle_rental: "Vehicle rental",
      petrol_and_vehicle_charging: "Petrol and vehicle charging",
    },
  },
  travel: {
    label: "Travel",
    subcategories: {
      flights_and_airport_expenses: "Flights and airport expenses",
      holiday_and_travel_expenses: "Holiday and travel expenses",
      other_travel: "Other travel",
    },
  },
  utilities: {
    label: "Utilities",
    subcategories: {
      other_utilities: "Other utilities",
      utilities_energy: "Energy",
      utilities_water_and_sewage: "Water and sewage",
      waste_and_recycling: "Waste and recycling",
    },
  },
} as const;

type Taxonomy = typeof TAXONOMY;
export type Category = keyof Taxonomy;
export type Subcategory = { [C in Category]: keyof Taxonomy[C]["subcategories"] }[Category];
export type SubcategoryOf<C extends Category> = keyof Taxonomy[C]["subcategories"] & Subcategory;

export const CATEGORIES = Object.keys(TAXONOMY) as [Category, ...Category[]];

/** Every subcategory, in the spec's order (category blocks in category order). */
export const SUBCATEGORIES = CATEGORIES.flatMap((c) => Object.keys(TAXONOMY[c].subcategories)) as [
  Subcategory,
  ...Subcategory[],
];

const parentOf = new Map<string, Category>(
  CATEGORIES.flatMap((c) => Object.keys(TAXONOMY[c].subcategories).map((s) => [s, c] as const)),
);

export function isCategory(value: string): value is Category {
  return Object.hasOwn(TAXONOMY, value);
}

export function isSubcategory(value: string): value is Subcategory {
  return parentOf.has(value);
}

/** The category a subcategory belongs to, or undefined for a value outside the taxonomy. */
export function categoryOf(subcategory: string): Category | undefined {
  return parentOf.get(subcategory);
}

export function subcategoriesOf<C extends Category>(category: C): SubcategoryOf<C>[] {
  return Object.keys(TAXONOMY[category].subcategories) as SubcategoryOf<C>[];
}

/**
 * Subcategories the taxonomy had before its revision of 2025-01-13 (upstream-facts §5.3): transactions categorised
 * before then keep them. Each with its category, its label and what replaced it (none: removed).
 */
export const LEGACY_SUBCATEGORIES: Readonly<
  Record<string, { category: Category; label: string; replacedBy: Subcategory | null }>
> = {
  overdraft_fees: { category: "banking", label: "Overdraft fees", replacedBy: "nsf_and_overdraft_fees" },
  bank_fees_and_currency_exchange: {
    category: "banking",
    label: "Bank fees and currency exchange",
    replacedBy: "account_fees_and_other_bank_charges",
  },
  deferred_bills: { category: "borrowing_and_loans", label: "Deferred bills", replacedBy: null },
};

/** Said of a value this version of Linkdesk does not know, beside the value itself. */
export const NOT_KNOWN = "not known to this version of Linkdesk";

export function categoryLabel(category: string): string {
  return isCategory(category) ? TAXONOMY[category].label : `${category} (${NOT_KNOWN})`;
}

export function subcategoryLabel(subcategory: string): string {
  const parent = parentOf.get(subcategory);
  if (parent) return (TAXONOMY[parent].subcategories as Record<string, string>)[subcategory] ?? subcategory;
  const legacy = Object.hasOwn(LEGACY_SUBCATEGORIES, subcategory) ? LEGACY_SUBCATEGORIES[subcategory] : undefined;
  if (legacy) return `${legacy.label} (before 2025-01-13)`;
  return `${subcategory} (${NOT_KNOWN})`;
}
