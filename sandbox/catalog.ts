// Reference data the seed draws from: institutions and a merchant catalog. Categories come from the taxonomy
// (a merchant names only its subcategory; the category is looked up), so a catalog entry cannot drift from it.
import { categoryOf, type Category, type Subcategory } from "./wire-vocabulary";
import { colorFor, type LogoArt, logoPath, monogramOf } from "./logos";
import { hashSeed, mulberry32, uuidFrom } from "./random";

export interface Institution {
  institution_id: string;
  name: string;
  /** A path on the sandbox (made absolute as it leaves, see logos.ts), or hostile data on purpose. */
  avatar: string;
  /** How the sandbox draws its logo; none for an institution whose avatar is not the sandbox's own. */
  logo?: LogoArt;
  /** Relative frequency among seeded links; 0 = only placed deliberately. */
  weight: number;
  country: "US" | "GB" | "CA";
  domain: string | null;
  /** Brand colours as hex, light and dark theme. */
  color: string | null;
  color_dark: string | null;
  /** Shown first in an institution picker (GET /institutions?featured=true). */
  featured: boolean;
}

type InstitutionSpec = Pick<Institution, "institution_id" | "name" | "avatar" | "weight"> & Partial<Institution>;

const institution = (spec: InstitutionSpec): Institution => ({
  country: "US",
  domain: null,
  color: null,
  color_dark: null,
  featured: false,
  ...spec,
});

/** An institution whose logo the sandbox serves at logoPath("institutions", slug), drawn in its brand colour. */
function bank(
  institution_id: string,
  name: string,
  slug: string,
  monogram: string,
  color: string,
  weight: number,
  more: Partial<Institution> = {},
): Institution {
  return institution({
    institution_id,
    name,
    avatar: logoPath("institutions", slug),
    logo: { monogram, color },
    weight,
    color,
    ...more,
  });
}

export const INSTITUTIONS: readonly Institution[] = [
  bank("chase", "Chase", "chase", "CH", "#117aca", 18, { domain: "chase.com", color_dark: "#5aa9e6", featured: true }),
  bank("bank_of_america", "Bank of America", "bofa", "BA", "#c8102e", 15, {
    domain: "bankofamerica.com",
    color_dark: "#ff5a6e",
    featured: true,
  }),
  bank("wells_fargo", "Wells Fargo", "wells-fargo", "WF", "#b31b1b", 12, {
    domain: "wellsfargo.com",
    color_dark: "#ff6b6b",
    featured: true,
  }),
  bank("citi", "Citibank", "citi", "CI", "#056dae", 9, { domain: "citi.com", featured: true }),
  bank("capital_one", "Capital One", "capital-one", "C1", "#004977", 9, { domain: "capitalone.com" }),
  bank("us_bank", "U.S. Bank", "us-bank", "US", "#0c2074", 6, { domain: "usbank.com" }),
  bank("pnc", "PNC Bank", "pnc", "PNC", "#c2410c", 5, { domain: "pnc.com" }),
  bank("ally", "Ally Bank", "ally", "AL", "#6d28d9", 5, { domain: "ally.com" }),
  bank("navy_federal", "Navy Federal Credit Union", "nfcu", "NF", "#003366", 4, { domain: "navyfederal.org" }),
  bank("schwab", "Charles Schwab", "schwab", "CS", "#0369a1", 3, { domain: "schwab.com" }),
  // The upstream's own sandbox institutions (upstream-facts §14); links made through a link session default to these.
  bank("instant_bank", "Instant Bank", "instant-bank", "IB", "#0f766e", 2, { featured: true }),
  bank("credentials_bank", "Credentials Bank", "credentials-bank", "CB", "#475569", 2),
  bank("oauth_bank", "OAuth Bank", "oauth-bank", "OB", "#4338ca", 1),
  // Outside the US, as the upstream's country codes spell them (GB, not UK).
  bank("monzo", "Monzo", "monzo", "MO", "#14233c", 0, { country: "GB", domain: "monzo.com" }),
  bank("rbc", "RBC Royal Bank", "rbc", "RB", "#005daa", 0, { country: "CA", domain: "rbcroyalbank.com" }),
  // Hostile data on purpose: the dashboard must allow-list avatar URL schemes and escape names.
  institution({
    institution_id: "evil_credit_union",
    name: "Evil Credit Union",
    avatar: "javascript:alert(document.domain)",
    weight: 0,
    domain: "javascript:alert(1)",
  }),
  {
    ...bank("script_savings", "", "script-savings", "SS", "#9f1239", 0),
    name: `<script>alert("linkdesk")</script> Savings & "Loan"`,
  },
];

/** The logo of an institution the sandbox does not know (an import naming another institution id). */
export const GENERIC_INSTITUTION_AVATAR = logoPath("institutions", "generic");
const GENERIC_INSTITUTION_LOGO: LogoArt = { monogram: "BK", color: "#64748b" };

export const HOSTILE_AVATAR_INSTITUTION_ID = "evil_credit_union";
export const HOSTILE_NAME_INSTITUTION_ID = "script_savings";
export const DEFAULT_SESSION_INSTITUTION_ID = "instant_bank";

const institutionsById = new Map(INSTITUTIONS.map((institution) => [institution.institution_id, institution]));

export function findInstitution(institutionId: string): Institution | undefined {
  return institutionsById.get(institutionId);
}

/** Providers through which an institution can also be named, `<provider>.<institution_id>` (e.g. `mx.chase`). */
export const ALIAS_PROVIDERS = ["mx", "finicity"] as const;

/** An institution by its id or one of its provider aliases. */
export function findInstitutionByIdOrAlias(idOrAlias: string): Institution | undefined {
  const direct = institutionsById.get(idOrAlias);
  if (direct) return direct;
  const dot = idOrAlias.indexOf(".");
  if (dot < 0 || !(ALIAS_PROVIDERS as readonly string[]).includes(idOrAlias.slice(0, dot))) return undefined;
  return institutionsById.get(idOrAlias.slice(dot + 1));
}

export interface Brand {
  id: string;
  name: string;
  display_name: string;
  logo: string;
  website: string;
}

export type Frequency = "weekly" | "biweekly" | "monthly" | "yearly";
export type MerchantRole = "everyday" | "subscription" | "income" | "refund" | "transfer" | "bank";

export interface CatalogEntry {
  slug: string;
  /** Null for bank-side entries (ATM, fees, transfers) that carry no merchant upstream. */
  brand: Brand | null;
  processor: Brand | null;
  category: Category;
  subcategory: Subcategory;
  direction: "debit" | "credit";
  role: MerchantRole;
  min: number;
  max: number;
  weight: number;
  frequency: Frequency | null;
  /** Raw bank-statement templates; `#` becomes a digit. */
  raw: readonly string[];
  /** Upper-case tokens that identify the merchant in an imported description. */
  match: readonly string[];
}

function brandOf(slug: string, name: string, website: string): Brand {
  return {
    id: uuidFrom(mulberry32(hashSeed("merchant", slug))),
    name,
    display_name: name,
    logo: logoPath("merchants", slug),
    website,
  };
}

const PROCESSORS = {
  square: brandOf("square", "Square", "squareup.com"),
  stripe: brandOf("stripe", "Stripe", "stripe.com"),
  paypal: brandOf("paypal", "PayPal", "paypal.com"),
  toast: brandOf("toast", "Toast", "toasttab.com"),
} as const;

interface EntrySpec {
  slug: string;
  name?: string;
  website?: string;
  subcategory: Subcategory;
  role?: MerchantRole;
  direction?: "debit" | "credit";
  amount: [number, number];
  weight?: number;
  frequency?: Frequency;
  processor?: keyof typeof PROCESSORS;
  raw: string[];
  match?: string[];
}

function entry(spec: EntrySpec): CatalogEntry {
  const category = categoryOf(spec.subcategory);
  if (!category) throw new Error(`catalog: ${spec.subcategory} is not in the taxonomy`);
  const role = spec.role ?? "everyday";
  return {
    slug: spec.slug,
    brand: spec.name && spec.website ? brandOf(spec.slug, spec.name, spec.website) : null,
    processor: spec.processor ? PROCESSORS[spec.processor] : null,
    category,
    subcategory: spec.subcategory,
    direction: spec.direction ?? (role === "income" || role === "refund" ? "credit" : "debit"),
    role,
    min: spec.amount[0],
    max: spec.amount[1],
    weight: spec.weight ?? 1,
    frequency: spec.frequency ?? null,
    raw: spec.raw,
    match: spec.match ?? [(spec.name ?? spec.slug).toUpperCase()],
  };
}

const sub = (spec: Omit<EntrySpec, "role">): CatalogEntry =>
  entry({ ...spec, role: "subscription", frequency: spec.frequency ?? "monthly" });

export const CATALOG: readonly CatalogEntry[] = [
  // food and drink
  entry({
    slug: "starbucks",
    name: "Starbucks",
    website: "starbucks.com",
    subcategory: "coffee",
    amount: [3.5, 14],
    weight: 6,
    raw: ["STARBUCKS STORE ##### SEATTLE WA", "STARBUCKS #####"],
  }),
  entry({
    slug: "blue-bottle",
    name: "Blue Bottle Coffee",
    website: "bluebottlecoffee.com",
    subcategory: "coffee",
    amount: [4, 16],
    weight: 2,
    processor: "square",
    raw: ["SQ *BLUE BOTTLE COFFEE", "SQ *BLUE BOTTLE ####"],
    match: ["BLUE BOTTLE"],
  }),
  entry({
    slug: "dunkin",
    name: "Dunkin'",
    website: "dunkindonuts.com",
    subcategory: "coffee",
    amount: [2.5, 11],
    weight: 3,
    raw: ["DUNKIN ####### Q35", "DUNKIN DONUTS ####"],
    match: ["DUNKIN"],
  }),
  entry({
    slug: "whole-foods",
    name: "Whole Foods Market",
    website: "wholefoodsmarket.com",
    subcategory: "groceries",
    amount: [18, 220],
    weight: 5,
    raw: ["WHOLEFDS MKT #####", "WHOLE FOODS MARKET ####"],
    match: ["WHOLEFDS", "WHOLE FOODS"],
  }),
  entry({
    slug: "trader-joes",
    name: "Trader Joe's",
    website: "traderjoes.com",
    subcategory: "groceries",
    amount: [15, 160],
    weight: 5,
    raw: ["TRADER JOE S #### QPS"],
    match: ["TRADER JOE"],
  }),
  entry({
    slug: "kroger",
    name: "Kroger",
    website: "kroger.com",
    subcategory: "groceries",
    amount: [12, 240],
    weight: 4,
    raw: ["KROGER #### CINCINNATI OH"],
  }),
  entry({
    slug: "safeway",
    name: "Safeway",
    website: "safeway.com",
    subcategory: "groceries",
    amount: [10, 190],
    weight: 3,
    raw: ["SAFEWAY #####"],
  }),
  entry({
    slug: "seven-eleven",
    name: "7-Eleven",
    website: "7-eleven.com",
    subcategory: "convenience_stores",
    amount: [2, 35],
    weight: 3,
    raw: ["7-ELEVEN #####"],
    match: ["7-ELEVEN", "7 ELEVEN"],
  }),
  entry({
    slug: "chipotle",
    name: "Chipotle",
    website: "chipotle.com",
    subcategory: "eating_out_and_takeaways",
    amount: [9, 42],
    weight: 4,
    raw: ["CHIPOTLE ####"],
  }),
  entry({
    slug: "mcdonalds",
    name: "McDonald's",
    website: "mcdonalds.com",
    subcategory: "eating_out_and_takeaways",
    amount: [5, 28],
    weight: 3,
    raw: ["MCDONALD'S F#####"],
    match: ["MCDONALD"],
  }),
  entry({
    slug: "doordash",
    name: "DoorDash",
    website: "doordash.com",
    subcategory: "eating_out_and_takeaways",
    amount: [14, 85],
    weight: 4,
    raw: ["DOORDASH*DASHPASS", "DD *DOORDASH ####"],
    match: ["DOORDASH"],
  }),
  entry({
    slug: "uber-eats",
    name: "Uber Eats",
    website: "ubereats.com",
    subcategory: "eating_out_and_takeaways",
    amount: [13, 70],
    weight: 3,
    raw: ["UBER *EATS PENDING", "UBER EATS ####"],
    match: ["UBER EATS", "UBER *EATS"],
  }),
  entry({
    slug: "sweetgreen",
    name: "Sweetgreen",
    website: "sweetgreen.com",
    subcategory: "eating_out_and_takeaways",
    amount: [11, 30],
    weight: 2,
    processor: "toast",
    raw: ["TST* SWEETGREEN ####"],
  }),
  entry({
    slug: "the-local-tap",
    name: "The Local Tap",
    website: "thelocaltap.example",
    subcategory: "bars_and_pubs",
    amount: [12, 95],
    weight: 2,
    processor: "square",
    raw: ["SQ *THE LOCAL TAP"],
    match: ["LOCAL TAP"],
  }),
  // transport
  entry({
    slug: "uber",
    name: "Uber",
    website: "uber.com",
    subcategory: "taxi",
    amount: [7, 65],
    weight: 4,
    raw: ["UBER *TRIP HELP.UBER.COM", "UBER   *TRIP ####"],
    match: ["UBER *TRIP", "UBER TRIP"],
  }),
  entry({
    slug: "lyft",
    name: "Lyft",
    website: "lyft.com",
    subcategory: "taxi",
    amount: [6, 55],
    weight: 3,
    raw: ["LYFT   *RIDE SUN #AM", "LYFT *RIDE ####"],
    match: ["LYFT"],
  }),
  entry({
    slug: "shell",
    name: "Shell",
    website: "shell.us",
    subcategory: "vehicle_fuel_and_charging",
    amount: [25, 85],
    weight: 3,
    raw: ["SHELL OIL ###########"],
  }),
  entry({
    slug: "chevron",
    name: "Chevron",
    website: "chevron.com",
    subcategory: "vehicle_fuel_and_charging",
    amount: [25, 90],
    weight: 3,
    raw: ["CHEVRON 0######"],
  }),
  entry({
    slug: "tesla-supercharger",
    name: "Tesla Supercharger",
    website: "tesla.com",
    subcategory: "petrol_and_vehicle_charging",
    amount: [8, 40],
    weight: 1,
    raw: ["TESLA SUPERCHARGER US"],
    match: ["SUPERCHARGER"],
  }),
  entry({
    slug: "mta",
    name: "MTA",
    website: "mta.info",
    subcategory: "public_transport",
    amount: [2.9, 132],
    weight: 3,
    raw: ["MTA*NYCT PAYGO", "MTA*METROCARD ####"],
    match: ["MTA*", "MTA "],
  }),
  entry({
    slug: "hertz",
    name: "Hertz",
    website: "hertz.com",
    subcategory: "vehicle_rental",
    amount: [80, 620],
    weight: 1,
    raw: ["HERTZ RENT-A-CAR ######"],
  }),
  entry({
    slug: "spothero",
    name: "SpotHero",
    website: "spothero.com",
    subcategory: "parking_and_tolls",
    amount: [8, 45],
    weight: 1,
    raw: ["SPOTHERO ########"],
  }),
  // shopping
  entry({
    slug: "amazon",
    name: "Amazon",
    website: "amazon.com",
    subcategory: "general_online_shopping",
    amount: [6, 240],
    weight: 7,
    raw: ["AMZN Mktp US*##XX#XX#", "AMAZON.COM*##XX#XX#"],
    match: ["AMZN", "AMAZON"],
  }),
  entry({
    slug: "target",
    name: "Target",
    website: "target.com",
    subcategory: "department_stores",
    amount: [8, 180],
    weight: 4,
    raw: ["TARGET        00#####"],
  }),
  entry({
    slug: "walmart",
    name: "Walmart",
    website: "walmart.com",
    subcategory: "department_stores",
    amount: [7, 210],
    weight: 4,
    raw: ["WAL-MART #####", "WALMART.COM ####"],
    match: ["WAL-MART", "WALMART"],
  }),
  entry({
    slug: "best-buy",
    name: "Best Buy",
    website: "bestbuy.com",
    subcategory: "electronics_appliances_and_technology",
    amount: [20, 1400],
    weight: 1,
    raw: ["BEST BUY 00#####"],
  }),
  entry({
    slug: "apple",
    name: "Apple",
    website: "apple.com",
    subcategory: "electronics_appliances_and_technology",
    amount: [29, 1800],
    weight: 1,
    raw: ["APPLE STORE R###"],
    match: ["APPLE STORE"],
  }),
  entry({
    slug: "nike",
    name: "Nike",
    website: "nike.com",
    subcategory: "clothing_and_accessories",
    amount: [35, 260],
    weight: 1,
    raw: ["NIKE.COM ####"],
  }),
  entry({
    slug: "uniqlo",
    name: "Uniqlo",
    website: "uniqlo.com",
    subcategory: "clothing_and_accessories",
    amount: [20, 150],
    weight: 1,
    raw: ["UNIQLO USA ###"],
  }),
  entry({
    slug: "etsy",
    name: "Etsy",
    website: "etsy.com",
    subcategory: "hobbies",
    amount: [9, 120],
    weight: 1,
    processor: "paypal",
    raw: ["PAYPAL *ETSY ####"],
    match: ["ETSY"],
  }),
  entry({
    slug: "1800flowers",
    name: "1-800-Flowers",
    website: "1800flowers.com",
    subcategory: "flowers_and_gifts",
    amount: [40, 140],
    weight: 1,
    raw: ["1-800-FLOWERS.COM"],
    match: ["1-800-FLOWERS"],
  }),
  // home, health, entertainment, charity, education
  entry({
    slug: "ikea",
    name: "IKEA",
    website: "ikea.com",
    subcategory: "furniture",
    amount: [15, 900],
    weight: 1,
    raw: ["IKEA ### BROOKLYN"],
  }),
  entry({
    slug: "home-depot",
    name: "The Home Depot",
    website: "homedepot.com",
    subcategory: "home_maintenance",
    amount: [10, 600],
    weight: 2,
    raw: ["THE HOME DEPOT #####"],
    match: ["HOME DEPOT"],
  }),
  entry({
    slug: "chewy",
    name: "Chewy",
    website: "chewy.com",
    subcategory: "pets",
    amount: [18, 160],
    weight: 1,
    raw: ["CHEWY.COM ######"],
  }),
  entry({
    slug: "cvs",
    name: "CVS Pharmacy",
    website: "cvs.com",
    subcategory: "pharmacies_and_health_products",
    amount: [4, 90],
    weight: 3,
    raw: ["CVS/PHARMACY #####"],
    match: ["CVS"],
  }),
  entry({
    slug: "walgreens",
    name: "Walgreens",
    website: "walgreens.com",
    subcategory: "pharmacies_and_health_products",
    amount: [4, 75],
    weight: 2,
    raw: ["WALGREENS #####"],
  }),
  entry({
    slug: "aspen-dental",
    name: "Aspen Dental",
    website: "aspendental.com",
    subcategory: "dental",
    amount: [60, 480],
    weight: 1,
    raw: ["ASPEN DENTAL ####"],
  }),
  entry({
    slug: "amc",
    name: "AMC Theatres",
    website: "amctheatres.com",
    subcategory: "cinema",
    amount: [12, 60],
    weight: 1,
    raw: ["AMC #### ONLINE"],
    match: ["AMC "],
  }),
  entry({
    slug: "ticketmaster",
    name: "Ticketmaster",
    website: "ticketmaster.com",
    subcategory: "theatre_concerts_and_tickets",
    amount: [45, 420],
    weight: 1,
    raw: ["TICKETMASTER *EVENT"],
  }),
  entry({
    slug: "steam",
    name: "Steam",
    website: "steampowered.com",
    subcategory: "gaming",
    amount: [5, 70],
    weight: 1,
    raw: ["STEAMGAMES.COM ########"],
    match: ["STEAM"],
  }),
  entry({
    slug: "red-cross",
    name: "American Red Cross",
    website: "redcross.org",
    subcategory: "charity",
    amount: [10, 250],
    weight: 1,
    raw: ["AMERICAN RED CROSS"],
    match: ["RED CROSS"],
  }),
  entry({
    slug: "delta",
    name: "Delta Air Lines",
    website: "delta.com",
    subcategory: "flights_and_airport_expenses",
    amount: [120, 900],
    weight: 1,
    raw: ["DELTA AIR ###########"],
    match: ["DELTA AIR"],
  }),
  entry({
    slug: "airbnb",
    name: "Airbnb",
    website: "airbnb.com",
    subcategory: "holiday_and_travel_expenses",
    amount: [90, 1500],
    weight: 1,
    raw: ["AIRBNB * HM#########"],
    match: ["AIRBNB"],
  }),
  entry({
    slug: "marriott",
    name: "Marriott",
    website: "marriott.com",
    subcategory: "holiday_and_travel_expenses",
    amount: [140, 980],
    weight: 1,
    raw: ["MARRIOTT #### NEW YORK"],
  }),
  entry({
    slug: "coinbase",
    name: "Coinbase",
    website: "coinbase.com",
    subcategory: "crypto_platform_outgoing",
    amount: [25, 500],
    weight: 1,
    raw: ["COINBASE.COM ########"],
  }),
  entry({
    slug: "affirm",
    name: "Affirm",
    website: "affirm.com",
    subcategory: "buy_now_pay_later",
    amount: [25, 180],
    weight: 1,
    raw: ["AFFIRM *PAYMENT"],
  }),
  // subscriptions and bills (recurring)
  sub({
    slug: "netflix",
    name: "Netflix",
    website: "netflix.com",
    subcategory: "tv_streaming_services",
    amount: [15.49, 22.99],
    weight: 5,
    raw: ["NETFLIX.COM"],
  }),
  sub({
    slug: "spotify",
    name: "Spotify",
    website: "spotify.com",
    subcategory: "digital_media_and_software",
    amount: [10.99, 16.99],
    weight: 4,
    processor: "paypal",
    raw: ["PAYPAL *SPOTIFY", "SPOTIFY USA"],
  }),
  sub({
    slug: "hulu",
    name: "Hulu",
    website: "hulu.com",
    subcategory: "tv_streaming_services",
    amount: [7.99, 17.99],
    weight: 2,
    raw: ["HULU ###-###-####"],
  }),
  sub({
    slug: "adobe",
    name: "Adobe",
    website: "adobe.com",
    subcategory: "digital_media_and_software",
    amount: [22.99, 59.99],
    weight: 1,
    raw: ["ADOBE *CREATIVE CLD"],
  }),
  sub({
    slug: "audible",
    name: "Audible",
    website: "audible.com",
    subcategory: "books_and_reading",
    amount: [14.95, 14.95],
    weight: 1,
    raw: ["AUDIBLE*########"],
  }),
  sub({
    slug: "xfinity",
    name: "Xfinity",
    website: "xfinity.com",
    subcategory: "broadband_phone_tv",
    amount: [55, 140],
    weight: 3,
    raw: ["COMCAST XFINITY ####"],
    match: ["XFINITY", "COMCAST"],
  }),
  sub({
    slug: "verizon",
    name: "Verizon",
    website: "verizon.com",
    subcategory: "broadband_phone_tv",
    amount: [45, 160],
    weight: 3,
    raw: ["VZWRLSS*APOCC VISB"],
    match: ["VZWRLSS", "VERIZON"],
  }),
  sub({
    slug: "planet-fitness",
    name: "Planet Fitness",
    website: "planetfitness.com",
    subcategory: "gym_and_fitness",
    amount: [10, 24.99],
    weight: 2,
    raw: ["PLANET FITNESS ###"],
  }),
  sub({
    slug: "con-edison",
    name: "Con Edison",
    website: "coned.com",
    subcategory: "utilities_energy",
    amount: [60, 240],
    weight: 2,
    raw: ["CON ED OF NY ONLINE"],
    match: ["CON ED"],
  }),
  sub({
    slug: "pge",
    name: "PG&E",
    website: "pge.com",
    subcategory: "utilities_energy",
    amount: [55, 260],
    weight: 2,
    raw: ["PGANDE WEB ONLINE"],
    match: ["PGANDE", "PG&E"],
  }),
  sub({
    slug: "greystar",
    name: "Greystar",
    website: "greystar.com",
    subcategory: "rent",
    amount: [1450, 3200],
    weight: 2,
    raw: ["GREYSTAR RENT PMT ######"],
    match: ["GREYSTAR"],
  }),
  sub({
    slug: "rocket-mortgage",
    name: "Rocket Mortgage",
    website: "rocketmortgage.com",
    subcategory: "mortgage",
    amount: [1600, 3900],
    weight: 2,
    raw: ["ROCKET MORTGAGE PMT"],
    match: ["ROCKET MORTGAGE"],
  }),
  sub({
    slug: "geico",
    name: "GEICO",
    website: "geico.com",
    subcategory: "vehicle_insurance",
    amount: [85, 210],
    weight: 2,
    raw: ["GEICO *AUTO ####"],
  }),
  sub({
    slug: "lemonade",
    name: "Lemonade",
    website: "lemonade.com",
    subcategory: "home_insurance",
    amount: [12, 45],
    weight: 1,
    raw: ["LEMONADE INSURANCE"],
  }),
  sub({
    slug: "navient",
    name: "Navient",
    website: "navient.com",
    subcategory: "student_loan",
    amount: [180, 420],
    weight: 1,
    raw: ["NAVIENT ED LOAN PMT"],
  }),
  sub({
    slug: "vanguard",
    name: "Vanguard",
    website: "vanguard.com",
    subcategory: "investments",
    amount: [100, 1000],
    weight: 1,
    raw: ["VANGUARD BUY INVESTMENT"],
  }),
  sub({
    slug: "coursera",
    name: "Coursera",
    website: "coursera.org",
    subcategory: "other_education",
    amount: [49, 59],
    weight: 1,
    processor: "stripe",
    raw: ["COURSERA *PLUS"],
    frequency: "yearly",
  }),
  // money in
  entry({
    slug: "acme-payroll",
    name: "Acme Corp",
    website: "acme.example",
    subcategory: "employment_income",
    role: "income",
    amount: [1800, 5200],
    weight: 3,
    frequency: "biweekly",
    raw: ["ACME CORP PAYROLL PPD ID: #########"],
    match: ["ACME CORP"],
  }),
  entry({
    slug: "gusto-payroll",
    name: "Gusto",
    website: "gusto.com",
    subcategory: "employment_income",
    role: "income",
    amount: [1500, 4800],
    weight: 2,
    frequency: "biweekly",
    raw: ["GUSTO PAY ###### DIR DEP"],
    match: ["GUSTO"],
  }),
  entry({
    slug: "ssa",
    subcategory: "benefits_and_social_security",
    role: "income",
    amount: [900, 2400],
    weight: 1,
    frequency: "monthly",
    raw: ["SSA TREAS 310 XXSOC SEC"],
    match: ["SOC SEC", "SSA TREAS"],
  }),
  entry({
    slug: "amazon-refund",
    name: "Amazon",
    website: "amazon.com",
    subcategory: "refunds_and_reversals",
    role: "refund",
    amount: [6, 120],
    weight: 2,
    raw: ["AMZN Mktp US REFUND"],
    match: ["AMZN MKTP US REFUND"],
  }),
  entry({
    slug: "venmo-in",
    name: "Venmo",
    website: "venmo.com",
    subcategory: "transfers_in",
    role: "transfer",
    direction: "credit",
    amount: [10, 300],
    weight: 2,
    raw: ["VENMO CASHOUT ##########"],
    match: ["VENMO CASHOUT"],
  }),
  entry({
    slug: "interest",
    subcategory: "interest",
    role: "bank",
    direction: "credit",
    amount: [0.12, 18],
    weight: 1,
    frequency: "monthly",
    raw: ["INTEREST PAYMENT"],
    match: ["INTEREST PAYMENT"],
  }),
  // money out without a merchant
  entry({
    slug: "venmo-out",
    name: "Venmo",
    website: "venmo.com",
    subcategory: "transfers_out",
    role: "transfer",
    amount: [8, 250],
    weight: 2,
    raw: ["VENMO PAYMENT ##########"],
    match: ["VENMO PAYMENT"],
  }),
  entry({
    slug: "atm",
    subcategory: "cash_withdrawals",
    role: "bank",
    amount: [20, 300],
    weight: 2,
    raw: ["ATM WITHDRAWAL ###### MAIN ST"],
    match: ["ATM WITHDRAWAL"],
  }),
  entry({
    slug: "service-fee",
    subcategory: "account_fees_and_other_bank_charges",
    role: "bank",
    amount: [5, 15],
    weight: 1,
    raw: ["MONTHLY SERVICE FEE"],
    match: ["SERVICE FEE"],
  }),
  entry({
    slug: "savings-transfer",
    subcategory: "internal_transfers",
    role: "bank",
    amount: [50, 800],
    weight: 1,
    raw: ["ONLINE TRANSFER TO SAV ...####"],
    match: ["ONLINE TRANSFER TO SAV"],
  }),
  entry({
    slug: "card-payment",
    subcategory: "credit_cards",
    role: "bank",
    amount: [150, 2400],
    weight: 1,
    frequency: "monthly",
    raw: ["CAPITAL ONE ONLINE PMT"],
    match: ["ONLINE PMT"],
  }),
  entry({
    slug: "irs",
    subcategory: "federal_tax",
    role: "bank",
    amount: [150, 3200],
    weight: 0.3,
    raw: ["IRS USATAXPYMT ###########"],
    match: ["USATAXPYMT"],
  }),
];

/** The logos the sandbox serves, by kind and slug: every catalog institution and merchant (and processor). */
export const LOGOS: Readonly<Record<"institutions" | "merchants", ReadonlyMap<string, LogoArt>>> = {
  institutions: new Map([
    ...INSTITUTIONS.flatMap((institution) =>
      institution.logo ? [[slugOfLogo(institution.avatar), institution.logo] as const] : [],
    ),
    [slugOfLogo(GENERIC_INSTITUTION_AVATAR), GENERIC_INSTITUTION_LOGO] as const,
  ]),
  merchants: new Map(
    [...CATALOG.flatMap((entry) => [entry.brand, entry.processor]), ...Object.values(PROCESSORS)]
      .filter((brand): brand is Brand => brand !== null)
      .map((brand) => {
        const slug = slugOfLogo(brand.logo);
        return [slug, { monogram: monogramOf(slug), color: colorFor(slug) }] as const;
      }),
  ),
};

function slugOfLogo(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1).replace(/\.svg$/, "");
}

/** Deliberate mistakes the fake categoriser makes, so the correction flow has something real to fix. */
export const MISCATEGORIES: readonly Subcategory[] = [
  "taxi",
  "gaming",
  "other_general",
  "pets",
  "vehicle_rental",
  "atm_fees",
];

export function cleanDescriptionOf(catalogEntry: CatalogEntry, raw: string): string {
  if (catalogEntry.brand) return catalogEntry.brand.display_name;
  return titleCase(
    raw
      .replace(/[#*]+/g, " ")
      .replace(/\d{3,}/g, "")
      .replace(/\s+/g, " ")
      .trim(),
  );
}

export function titleCase(text: string): string {
  return text.toLowerCase().replace(/\b([a-z])/g, (letter) => letter.toUpperCase());
}
