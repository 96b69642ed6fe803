// What GET /links/{id}/accounts/numbers and GET /links/{id}/identity add to an account (upstream-facts §9): payment
// numbers and the owners' identity. Derived from the account and link ids alone, so they are the same on every read
// and need no storage. Numbers end in the account's mask; routing numbers pass the ABA check digit and IBANs the
// mod-97 check, as the upstream's custom sandbox data requires (§14); names, addresses and phone numbers are
// fictional (555-01xx numbers, `.example` mail domains).
import { hashSeed, intBetween, mulberry32, pick, digits, type Rng } from "./random";
import type { AccountRecord, LinkRecord } from "./types";

export interface AccountNumbers {
  ach: { account_number: string; routing_number: string; wire_routing_number: string | null }[];
  eft: { account_number: string; institution_number: string; branch_number: string }[];
  bacs: { account_number: string; sort_code: string }[];
  international: { iban: string; bic: string }[];
}

export interface Owner {
  names: string[];
  addresses: { street: string; city: string; region: string; postal_code: string; country: string; primary: boolean }[];
  phone_numbers: { number: string; primary: boolean; type: "home" | "work" | "mobile" | "other" }[];
  emails: { address: string; primary: boolean }[];
}

const rngOf = (...parts: string[]) => mulberry32(hashSeed(...parts));

/** A nine-digit ABA routing number: 3·(d1+d4+d7) + 7·(d2+d5+d8) + (d3+d6+d9) ≡ 0 (mod 10). */
export function abaRoutingNumber(rng: Rng): string {
  // The first two digits of a real routing number name a Federal Reserve district (01–12).
  const first8 = `${String(intBetween(rng, 1, 12)).padStart(2, "0")}${digits(rng, 6)}`;
  const d = [...first8].map(Number);
  const sum =
    3 * ((d[0] ?? 0) + (d[3] ?? 0) + (d[6] ?? 0)) +
    7 * ((d[1] ?? 0) + (d[4] ?? 0) + (d[7] ?? 0)) +
    ((d[2] ?? 0) + (d[5] ?? 0));
  return `${first8}${(10 - (sum % 10)) % 10}`;
}

export function isValidAbaRoutingNumber(value: string): boolean {
  if (!/^\d{9}$/.test(value)) return false;
  const d = [...value].map(Number);
  const weights = [3, 7, 1, 3, 7, 1, 3, 7, 1];
  return d.reduce((sum, digit, i) => sum + digit * (weights[i] ?? 0), 0) % 10 === 0;
}

/** ISO 13616 check digits: move the country and "00" to the end, letters to numbers, 98 − (n mod 97). */
export function ibanFor(country: string, bban: string): string {
  const numeric = `${bban}${country}00`.replace(/[A-Z]/g, (letter) => String(letter.charCodeAt(0) - 55));
  const check = 98 - Number(BigInt(numeric) % 97n);
  return `${country}${String(check).padStart(2, "0")}${bban}`;
}

export function isValidIban(iban: string): boolean {
  const rearranged = `${iban.slice(4)}${iban.slice(0, 4)}`.replace(/[A-Z]/g, (letter) =>
    String(letter.charCodeAt(0) - 55),
  );
  return /^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(iban) && BigInt(rearranged) % 97n === 1n;
}

/** Payment numbers of one account: ACH in the US, EFT in Canada, BACS and IBAN in the UK; none for cards and loans. */
export function accountNumbersOf(account: AccountRecord): AccountNumbers {
  const numbers: AccountNumbers = { ach: [], eft: [], bacs: [], international: [] };
  if (!account.account_type.startsWith("depository")) return numbers;
  const rng = rngOf("account-numbers", account.account_id);
  const mask = account.account_mask ?? digits(rng, 4);
  switch (account.balances.currency) {
    case "CAD":
      numbers.eft.push({
        account_number: `${digits(rng, 3)}${mask}`,
        institution_number: String(intBetween(rng, 1, 999)).padStart(3, "0"),
        branch_number: digits(rng, 5),
      });
      break;
    case "GBP": {
      const sortCode = digits(rng, 6);
      const accountNumber = `${digits(rng, 4)}${mask}`;
      numbers.bacs.push({ account_number: accountNumber, sort_code: sortCode });
      numbers.international.push({ iban: ibanFor("GB", `SAND${sortCode}${accountNumber}`), bic: "SANDGB2L" });
      break;
    }
    default: {
      const routing = abaRoutingNumber(rng);
      numbers.ach.push({
        account_number: `${digits(rng, intBetween(rng, 4, 8))}${mask}`,
        routing_number: routing,
        wire_routing_number: routing,
      });
    }
  }
  return numbers;
}

const FIRST_NAMES = [
  "Alex",
  "Jordan",
  "Sam",
  "Taylor",
  "Morgan",
  "Casey",
  "Riley",
  "Jamie",
  "Avery",
  "Quinn",
  "Drew",
  "Robin",
];
const LAST_NAMES = [
  "Rivera",
  "Chen",
  "Okafor",
  "Novak",
  "Haddad",
  "Larsen",
  "Moreau",
  "Tanaka",
  "Silva",
  "Brennan",
  "Kowalski",
  "Adeyemi",
];
const STREETS = [
  "Maple Ave",
  "Oak St",
  "Cedar Ln",
  "Harbor Rd",
  "Hillcrest Dr",
  "Lake Shore Blvd",
  "Elm St",
  "Willow Way",
];
const PLACES: Record<string, { city: string; region: string; postal: () => string }[]> = {
  US: [
    { city: "Springfield", region: "IL", postal: () => "62704" },
    { city: "Portland", region: "OR", postal: () => "97205" },
    { city: "Austin", region: "TX", postal: () => "78701" },
    { city: "Columbus", region: "OH", postal: () => "43215" },
  ],
  CA: [
    { city: "Toronto", region: "ON", postal: () => "M5V 2T6" },
    { city: "Calgary", region: "AB", postal: () => "T2P 1J9" },
  ],
  GB: [
    { city: "Leeds", region: "West Yorkshire", postal: () => "LS1 4AP" },
    { city: "Bristol", region: "Bristol", postal: () => "BS1 5TR" },
  ],
};

const COUNTRY_OF_CURRENCY: Record<string, string> = { CAD: "CA", GBP: "GB" };

/** The link's end user as the institution knows them: one owner for every account of the link. */
export function ownersOf(link: LinkRecord, accounts: AccountRecord[]): Owner[] {
  const rng = rngOf("identity", link.customerUserId ?? link.link_id);
  const first = pick(rng, FIRST_NAMES);
  const last = pick(rng, LAST_NAMES);
  const country = COUNTRY_OF_CURRENCY[accounts[0]?.balances.currency ?? "USD"] ?? "US";
  const place = pick(rng, PLACES[country] ?? PLACES.US ?? []);
  const phone =
    country === "GB" ? `+44 7700 900${digits(rng, 3)}` : `+1 ${intBetween(rng, 201, 989)}-555-01${digits(rng, 2)}`;
  return [
    {
      names: [`${first} ${last}`],
      addresses: [
        {
          street: `${intBetween(rng, 10, 9899)} ${pick(rng, STREETS)}`,
          city: place.city,
          region: place.region,
          postal_code: place.postal(),
          country,
          primary: true,
        },
      ],
      phone_numbers: [{ number: phone, primary: true, type: "mobile" }],
      emails: [{ address: `${first}.${last}@mail.example`.toLowerCase(), primary: true }],
    },
  ];
}
