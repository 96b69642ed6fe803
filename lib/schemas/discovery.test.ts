import { describe, expect, it } from "vitest";
import { checkLinkIds, customerLookupSchema, linkIdProblem, parseLinkIdFile, REGISTER_FILE_MAX_IDS } from "./discovery";

// The checks shared by the registration page (in the browser and on the server), the back end's endpoint and the
// customer lookup: what counts as a link id or a customer id, and how a file of ids is read.

const id = (n: number) => `mk_${String(n).padStart(22, "0")}`;

describe("a link id", () => {
  it("is mk_ and 8 to 64 letters or digits; anything else says why in words", () => {
    expect(linkIdProblem("mk_eqkWN34UEoa2NxyALG8pcV")).toBeNull();
    expect(linkIdProblem(`mk_${"a".repeat(64)}`)).toBeNull();
    expect(linkIdProblem(`mk_${"a".repeat(65)}`)).toBe("too long: 68 characters, a link id has at most 67");
    expect(linkIdProblem("mk_short")).toBe("too short: a link id has mk_ and at least 8 letters or digits");
    expect(linkIdProblem("mk_eqkWN34UEoa2NxyALG8p-V")).toBe("holds characters other than letters and digits after mk_");
    expect(linkIdProblem("acc_6Tef269B6ZArSVpYrxtjBV")).toBe(
      "does not start with mk_ (a link id looks like mk_eqkWN34UEoa2NxyALG8pcV)",
    );
    expect(linkIdProblem(" mk_eqkWN34UEoa2NxyALG8pcV")).toBe("has spaces around it");
    expect(linkIdProblem("")).toBe("empty");
    expect(linkIdProblem(42)).toBe("not text but number");
    expect(linkIdProblem(null)).toBe("not text but null");
    expect(linkIdProblem(["mk_eqkWN34UEoa2NxyALG8pcV"])).toBe("not text but a list");
  });

  it("is counted once in a list; the invalid ones are listed by index", () => {
    expect(checkLinkIds([id(1), id(2), id(1), "x", id(3), {}])).toEqual({
      ids: [id(1), id(2), id(3)],
      duplicates: 1,
      invalid: [
        { index: 3, reason: expect.stringContaining("does not start with mk_") },
        { index: 5, reason: "not text but object" },
      ],
    });
  });
});

describe("a file of link ids", () => {
  it("of one id a line: blank lines skipped, any line ending, a byte-order mark, lines without an id by number", () => {
    const file = parseLinkIdFile(`\uFEFF${id(1)}\r\n\r\n${id(2)}\n  ${id(3)}  \rnot an id\n${id(1)}\n`);
    expect(file).toEqual({
      format: "lines",
      ids: [id(1), id(2), id(3)],
      duplicates: 1,
      invalid: [{ line: 5, reason: expect.stringContaining("does not start with mk_"), text: "not an id" }],
      refusal: null,
    });
  });

  it("as CSV: the link_id column named in the header row, quoted cells, rows without an id by number", () => {
    const file = parseLinkIdFile(`"customer","LINK_ID"\n"Doe, Jane",${id(1)}\nSmith,"${id(2)}"\nNobody,\nx,mk_bad!\n`);
    expect(file).toMatchObject({ format: "csv", ids: [id(1), id(2)], duplicates: 0, refusal: null });
    expect(file.invalid).toEqual([
      { line: 4, reason: "no link_id in this row", text: "Nobody," },
      { line: 5, reason: "too short: a link id has mk_ and at least 8 letters or digits", text: "x,mk_bad!" },
    ]);
  });

  it("is refused as a whole, in words: CSV without a link_id column, no id at all, too many ids", () => {
    expect(parseLinkIdFile(`${id(1)},customer\n`).refusal).toBe(
      'Line 1 has commas but names no link_id column: a CSV file starts with a header row such as "link_id,customer_id".',
    );
    expect(parseLinkIdFile("\n\n").refusal).toBe("The file holds no link id.");
    const many = parseLinkIdFile(Array.from({ length: REGISTER_FILE_MAX_IDS + 1 }, (_, i) => id(i)).join("\n"));
    expect(many).toMatchObject({
      ids: [],
      refusal: "The file holds 50,001 link ids: at most 50,000 a file. Split it into smaller files.",
    });
    // Lines without an id, and nothing else: not refused, nothing to register.
    expect(parseLinkIdFile("nope\n")).toMatchObject({ ids: [], refusal: null, invalid: [{ line: 1 }] });
  });

  it("shows a long line cut short", () => {
    const [line] = parseLinkIdFile(`${"x".repeat(200)}\n`).invalid;
    expect(line!.text).toBe(`${"x".repeat(60)}…`);
  });
});

describe("a customer id", () => {
  it("is the product's id, trimmed: letters, digits and _ - . : @ +, up to 128 characters", () => {
    for (const ok of ["user_42", "42", "cust-9.a:b@c+d", "U".repeat(128)])
      expect(customerLookupSchema.safeParse({ customerId: ok }).success, ok).toBe(true);
    expect(customerLookupSchema.parse({ customerId: "  user_42\t" })).toEqual({ customerId: "user_42" });
    const problem = (customerId: unknown) =>
      customerLookupSchema.safeParse({ customerId }).error?.issues.map((issue) => issue.message);
    expect(problem(".")).toEqual(["A customer id starts with a letter or a digit."]);
    expect(problem("..")).toEqual(["A customer id starts with a letter or a digit."]);
    expect(problem("user%2F42")).toEqual(['A customer id holds only letters, digits and _ - . : @ + (not "%").']);
    expect(problem(undefined)).toEqual(["Enter a customer id."]);
  });
});
