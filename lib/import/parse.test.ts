import { describe, expect, it, vi } from "vitest";
import { analyzeImportFile } from "./analyze";
import { MAX_NESTING_DEPTH, UPLOAD_MAX_BYTES } from "./limits";
import { arrayElementLines, checkFileSize, decodeUtf8, parseImportText } from "./parse";

// Reading an uploaded file: formats, syntax errors named by line and column, and the guards (size, encoding, nesting,
// __proto__) that stop a hostile or broken file before anything is built from it.

const link = (id: string) => ({ customer_user: { id }, institution_id: "chase" });
const bytes = (text: string) => new TextEncoder().encode(text);

describe("formats", () => {
  it("reads one Import Link body, an array of them, and NDJSON, naming the line each link starts on", () => {
    const single = parseImportText(JSON.stringify(link("a"), null, 2));
    expect(single).toMatchObject({ ok: true, format: "object", links: [{ position: 0, line: 1 }] });
    const arrayText = `[\n${JSON.stringify(link("a"))},\n\n  ${JSON.stringify(link("b"))}\n]`;
    expect(parseImportText(arrayText)).toMatchObject({ ok: true, format: "array", links: [{ position: 0 }, { position: 1 }] });
    // Lines of an array's links are found when a link needs naming (it has problems).
    expect(arrayElementLines(arrayText)).toEqual([2, 4]);
    const ndjson = parseImportText(`${JSON.stringify(link("a"))}\r\n\n${JSON.stringify(link("b"))}\n`);
    expect(ndjson).toMatchObject({ ok: true, format: "ndjson", links: [{ position: 0, line: 1 }, { position: 1, line: 3 }] });
    if (ndjson.ok) expect(ndjson.links.map((l) => (l.value as { customer_user: { id: string } }).customer_user.id)).toEqual(["a", "b"]);
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
    const parsed = parseImportText(`${JSON.stringify(link("a"))}\n{"customer_user": {"id": "b"},}\n${JSON.stringify(link("c"))}`);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.links).toHaveLength(3);
    expect(parsed.links[1]?.syntax).toEqual({ line: 2, column: 31, message: "Line 2 is not valid JSON at column 31: a comma before } (trailing commas are not JSON)." });
    expect(parsed.links[2]?.value).toEqual(link("c"));
  });
});

describe("syntax errors name line and column", () => {
  it.each([
    ['{\n  "customer_user": {"id": "a"}\n  "institution_id": "chase"\n}', 3, 3, "expected , or } after a property's value"],
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
    expect(decoded).toEqual({ ok: false, problem: { line: 2, message: "The file is not UTF-8 text: byte 30 (on line 2) is not valid UTF-8. Save the export as UTF-8 and upload it again." } });
    expect(decodeUtf8(bytes('{"name": "Müller €"}'))).toEqual({ ok: true, text: '{"name": "Müller €"}' });
  });

  it("refuses nesting deeper than the limit without building anything", () => {
    const deep = `{"provider_data": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    const parsed = parseImportText(deep);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem.message).toBe(`Not valid JSON at line 1, column ${19 + MAX_NESTING_DEPTH - 1}: nested deeper than ${MAX_NESTING_DEPTH} levels.`);
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

  it("refuses what is not links: a number, an empty array", () => {
    expect(parseImportText("42")).toMatchObject({ ok: false, problem: { message: expect.stringContaining("must hold an Import Link body") } });
    expect(parseImportText("[]")).toMatchObject({ ok: false, problem: { message: "The file holds an empty array: no links to import." } });
  });

  it("a whole-file problem leaves no links to import", async () => {
    const { report } = await analyzeImportFile(new Uint8Array([0xff, 0xfe, 0x7b]));
    expect(report).toMatchObject({ links: [], valid: 0, fileProblem: { message: expect.stringContaining("not UTF-8") } });
  });
});
