import { describe, expect, it, vi } from "vitest";
import { checkFileSize, MAX_LINKS_PER_FILE, MAX_NESTING_DEPTH, UPLOAD_MAX_BYTES } from "../limits";
import { arrayElementLines, parseImportText } from "./formats";
import { analyzeImportFile } from "./index";
import { decodeUtf8 } from "./utf8";
import { whereInFile } from "../positions";

// Reading an uploaded file: formats, syntax errors named by line and column, and the guards (size, encoding, nesting,
// __proto__) that stop a hostile or broken file before anything is built from it.

const link = (id: string) => ({ customer_user: { id }, institution_id: "chase" });
const bytes = (text: string) => new TextEncoder().encode(text);

describe("where each link is", () => {
  it("names a minified file's links by position, JSON path, line and column, and a pretty one's without the column", async () => {
    const links = [link("a"), link("b"), link("c")];
    const minified = JSON.stringify(links);
    const { report } = await analyzeImportFile(bytes(minified));
    const third = report.links[2]!;
    const column = minified.indexOf(JSON.stringify(link("c"))) + 1;
    expect(third).toMatchObject({ position: 2, line: 1, path: "$[2]", column });
    expect(whereInFile(third)).toBe(`#3 ($[2], line 1, column ${column})`);

    const pretty = await analyzeImportFile(bytes(JSON.stringify({ links }, null, 2)));
    expect(pretty.report.links.map(whereInFile)).toEqual([
      "#1 ($.links[0], line 3)",
      "#2 ($.links[1], line 9)",
      "#3 ($.links[2], line 15)",
    ]);
    const ndjson = await analyzeImportFile(bytes(links.map((l) => JSON.stringify(l)).join("\n")));
    expect(ndjson.report.links.map(whereInFile)).toEqual(["#1 (line 1)", "#2 (line 2)", "#3 (line 3)"]);
  });
});

describe("formats", () => {
  it("reads one Import Link body, an array of them, and NDJSON, naming the line each link starts on", () => {
    const single = parseImportText(JSON.stringify(link("a"), null, 2));
    expect(single).toMatchObject({ ok: true, format: "object", links: [{ position: 0, line: 1 }] });
    const arrayText = `[\n${JSON.stringify(link("a"))},\n\n  ${JSON.stringify(link("b"))}\n]`;
    expect(parseImportText(arrayText)).toMatchObject({
      ok: true,
      format: "array",
      links: [{ position: 0 }, { position: 1 }],
    });
    // Lines of an array's links are found when a link needs naming (it has problems).
    expect(arrayElementLines(arrayText)).toEqual([2, 4]);
    const ndjson = parseImportText(`${JSON.stringify(link("a"))}\r\n\n${JSON.stringify(link("b"))}\n`);
    expect(ndjson).toMatchObject({
      ok: true,
      format: "ndjson",
      links: [
        { position: 0, line: 1 },
        { position: 1, line: 3 },
      ],
    });
    if (ndjson.ok)
      expect(ndjson.links.map((l) => (l.value as { customer_user: { id: string } }).customer_user.id)).toEqual([
        "a",
        "b",
      ]);
  });

  it("reads a fleet file (NDJSON) one line at a time, when each link is checked, so the server never holds every link at once", async () => {
    const text = Array.from({ length: 50 }, (_, i) => JSON.stringify(link(`u${i}`))).join("\n");
    const parse = vi.spyOn(JSON, "parse");
    try {
      const parsed = parseImportText(text);
      expect(parsed).toMatchObject({ ok: true, format: "ndjson" });
      if (!parsed.ok) return;
      expect(parsed.links).toHaveLength(50);
      // The one attempt at the whole text (which is not one JSON value), no line yet.
      expect(parse).toHaveBeenCalledTimes(1);
      expect((parsed.links[7]!.value as { customer_user: { id: string } }).customer_user.id).toBe("u7");
      expect(parse).toHaveBeenCalledTimes(2);
      // Planned links come out in order, each as soon as it is planned.
      const planned: number[] = [];
      await analyzeImportFile(bytes(text), { onPlan: (position) => void planned.push(position) });
      expect(planned).toEqual(Array.from({ length: 50 }, (_, i) => i));
    } finally {
      parse.mockRestore();
    }
  });

  it("in NDJSON a broken line is that link's problem; the other lines still count", () => {
    const parsed = parseImportText(
      `${JSON.stringify(link("a"))}\n{"customer_user": {"id": "b"},}\n${JSON.stringify(link("c"))}`,
    );
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.links).toHaveLength(3);
    expect(parsed.links[1]?.syntax).toEqual({
      line: 2,
      column: 31,
      message: "Line 2 is not valid JSON at column 31: a comma before } (trailing commas are not JSON).",
    });
    expect(parsed.links[2]?.value).toEqual(link("c"));
  });
});

describe("links under a key", () => {
  const wrappedText = `{\n  "links": [\n    ${JSON.stringify(link("a"))},\n\n    ${JSON.stringify(link("b"))}\n  ]\n}\n`;

  it('reads {"links": [...]} as its array, each link named by the line it starts on', async () => {
    const parsed = parseImportText(wrappedText);
    expect(parsed).toMatchObject({
      ok: true,
      format: "wrapped",
      links: [
        { position: 0, line: 3, value: link("a") },
        { position: 1, line: 5, value: link("b") },
      ],
    });
    const { report } = await analyzeImportFile(bytes(wrappedText));
    expect(report).toMatchObject({ format: "wrapped", valid: 2, links: [{ line: 3 }, { line: 5 }] });
    // However the key is spelt in the text.
    expect(parseImportText(`{"\\u006cinks":\n[\n${JSON.stringify(link("a"))}]}`)).toMatchObject({
      ok: true,
      format: "wrapped",
      links: [{ line: 3 }],
    });
  });

  it("refuses an object holding its links under another key, with the reason", () => {
    const items = Array.from({ length: 12 }, (_, i) => link(`u${i}`));
    expect(parseImportText(JSON.stringify({ items }))).toEqual({
      ok: false,
      problem: {
        message:
          'The file is an object with the key "items" holding 12 entries; Linkdesk reads links from a top-level array, NDJSON, one Import Link body, or an object {"links": [...]}.',
      },
    });
    expect(parseImportText(JSON.stringify({ exported_at: "2024-01-01", data: [link("a")], errors: [] }))).toMatchObject(
      {
        ok: false,
        problem: {
          message: expect.stringMatching(
            /^The file is an object with the key "data" holding 1 entry \(and 1 more key holding a list\); Linkdesk reads links from/,
          ),
        },
      },
    );
  });

  it('refuses "links" beside other keys, naming them', () => {
    expect(
      parseImportText(JSON.stringify({ links: [link("a"), link("b")], meta: { exported: "2024-01-01" } })),
    ).toMatchObject({
      ok: false,
      problem: {
        message:
          'The file is an object with the key "links" holding 2 entries beside the key "meta", which Linkdesk does not read; Linkdesk reads links from a top-level array, NDJSON, one Import Link body, or an object {"links": [...]}.',
      },
    });
    expect(parseImportText('{"links": []}')).toEqual({
      ok: false,
      problem: { message: 'The file holds an empty list under "links": no links to import.' },
    });
  });

  it("an object with any field of an Import Link body is one link, whatever lists it holds", () => {
    expect(parseImportText(JSON.stringify({ accounts: [{ account_id: "a1" }], items: [1, 2] }))).toMatchObject({
      ok: true,
      format: "object",
      links: [{ position: 0 }],
    });
    // No lists at all: one link, whose problems say what is missing.
    expect(parseImportText(JSON.stringify({ customer: { id: "a" } }))).toMatchObject({ ok: true, format: "object" });
  });

  it("a wrapped file that is not plain JSON is scanned: its syntax error or refused key named by line and column", () => {
    const broken = parseImportText(
      `{\n  "links": [\n    ${JSON.stringify(link("a"))},\n    {"customer_user": {"id": "b"},}\n  ]\n}`,
    );
    expect(broken).toMatchObject({
      ok: false,
      problem: { line: 4, column: 35, message: expect.stringContaining("a comma before }") },
    });
    const proto = parseImportText(
      `{"links": [\n${JSON.stringify(link("a"))},\n{"customer_user": {"id": "b"}, "provider_data": {"__proto__": {}}}\n]}`,
    );
    expect(proto).toMatchObject({
      ok: false,
      problem: { line: 3, message: expect.stringContaining("a property named __proto__") },
    });
  });
});

describe("syntax errors name line and column", () => {
  it.each([
    [
      '{\n  "customer_user": {"id": "a"}\n  "institution_id": "chase"\n}',
      3,
      3,
      "expected , or } after a property's value",
    ],
    ["[\n  {'customer_user': 1}\n]", 2, 4, "expected a property name in double quotes"],
    ['{"a": [1, 2,]}', 1, 13, "a comma before ]"],
    ['{"a": "line\nbreak"}', 1, 12, "a line break inside a string"],
    ['{"a": 01}', 1, 8, "expected , or } after a property's value"],
    ['{"a": tru}', 1, 7, "expected a value"],
    ['{"a": "x"', 1, 10, "expected , or } after a property's value, found the end of the text"],
    ['{"a": 1} x', 1, 10, "more text after the end of the JSON value"],
    ["hello", 1, 1, "expected a value"],
  ])("%j → line %i, column %i", (text, line, column, reason) => {
    const parsed = parseImportText(text);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problem).toMatchObject({ line, column });
    expect(parsed.problem.message).toContain(`line ${line}, column ${column}`);
    expect(parsed.problem.message).toContain(reason);
  });
});

describe("guards", () => {
  it("a file over the link cap says how many links it holds and the cap, in every format", () => {
    const count = MAX_LINKS_PER_FILE + 1_234;
    const line = '{"customer_user":{"id":"u"},"institution_id":"chase"}';
    const texts = [
      Array(count).fill(line).join("\n\n"),
      `[${Array(count).fill(line).join(",")}]`,
      `{"links":[${Array(count).fill(line).join(",")}]}`,
    ];
    for (const text of texts) {
      const parsed = parseImportText(text);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok)
        expect(parsed.problem.message).toBe(
          `The file holds ${count.toLocaleString("en-US")} links: more than the ${MAX_LINKS_PER_FILE.toLocaleString("en-US")} Linkdesk imports from one file. Split it.`,
        );
    }
  });

  it("refuses an empty file and one over the upload limit before reading it, naming the limit", () => {
    expect(checkFileSize(0)?.message).toBe("The file is empty.");
    expect(checkFileSize(200 * 1024 * 1024)?.message).toBe(
      "The file is 200.0 MB: over the 25 MB Linkdesk takes. Split it into smaller files (NDJSON splits anywhere between lines).",
    );
    expect(checkFileSize(UPLOAD_MAX_BYTES)).toBeNull();
    expect(parseImportText(" \n\t")).toEqual({ ok: false, problem: { message: "The file is empty." } });
  });

  it("refuses bytes that are not UTF-8, saying where", () => {
    const latin1 = new Uint8Array([...bytes('{"customer_user": {"id": "M'), 0xfc, ...bytes('ller"}}')]);
    const decoded = decodeUtf8(new Uint8Array([...bytes("{\n"), ...latin1]));
    expect(decoded).toEqual({
      ok: false,
      problem: {
        line: 2,
        message:
          "The file is not UTF-8 text: byte 30 (on line 2) is not valid UTF-8. Save the export as UTF-8 and upload it again.",
      },
    });
    expect(decodeUtf8(bytes('{"name": "Müller €"}'))).toEqual({ ok: true, text: '{"name": "Müller €"}' });
  });

  it("refuses nesting deeper than the limit without building anything", () => {
    const deep = `{"provider_data": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    const parsed = parseImportText(deep);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok)
      expect(parsed.problem.message).toBe(
        `Not valid JSON at line 1, column ${19 + MAX_NESTING_DEPTH - 1}: nested deeper than ${MAX_NESTING_DEPTH} levels.`,
      );
  });

  it("refuses a __proto__ key, even spelled with escapes", () => {
    for (const key of ["__proto__", "\\u005f_proto__"]) {
      const parsed = parseImportText(`{"customer_user": {"id": "a"}, "provider_data": {"${key}": {"admin": true}}}`);
      expect(parsed.ok, key).toBe(false);
      if (!parsed.ok) expect(parsed.problem.message).toContain("a property named __proto__, which Linkdesk refuses");
    }
    // As a value it is only text.
    expect(parseImportText('{"customer_user": {"id": "__proto__"}}').ok).toBe(true);
  });

  it("refuses half of a surrogate pair, which PostgreSQL's JSON cannot store, naming where; a whole pair reads", () => {
    for (const [escape, half] of [
      ["\\ud800", "after it"],
      ["\\udc00", "before it"],
      ["\\ud800\\u0041", "after it"],
    ] as const) {
      const parsed = parseImportText(`{"customer_user": {"id": "a"},\n "institution_id": "x${escape}y"}`);
      expect(parsed.ok, escape).toBe(false);
      if (!parsed.ok) {
        expect(parsed.problem.message).toContain(`half of a surrogate pair`);
        expect(parsed.problem.message).toContain(half);
        expect(parsed.problem.message).toContain("which cannot be stored");
        expect(parsed.problem.message).toMatch(/line 2/);
      }
    }
    const whole = parseImportText('{"customer_user": {"id": "\\ud83d\\ude00"}, "institution_id": "chase"}');
    expect(whole.ok).toBe(true);
    if (whole.ok) expect(JSON.stringify(whole.links)).toContain("😀");
  });

  it("refuses what is not links: a number, an empty array", () => {
    expect(parseImportText("42")).toMatchObject({
      ok: false,
      problem: { message: expect.stringContaining("must hold an Import Link body") },
    });
    expect(parseImportText("[]")).toMatchObject({
      ok: false,
      problem: { message: "The file holds an empty array: no links to import." },
    });
  });

  it("a whole-file problem leaves no links to import", async () => {
    const { report } = await analyzeImportFile(new Uint8Array([0xff, 0xfe, 0x7b]));
    expect(report).toMatchObject({
      links: [],
      valid: 0,
      fileProblem: { message: expect.stringContaining("not UTF-8") },
    });
  });
});
