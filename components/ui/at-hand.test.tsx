import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";
import { AtHand } from "./at-hand";

describe("AtHand", () => {
  it("renders a read at hand in the same pass, without asking for it again", () => {
    const load = vi.fn(async () => "fresh");
    const html = renderToStaticMarkup(
      <AtHand value="kept" load={load} fallback={<p>Loading</p>}>
        {(value) => <b>{value}</b>}
      </AtHand>,
    );
    expect(html).toBe("<b>kept</b>");
    expect(load).not.toHaveBeenCalled();
  });

  it("streams a cold read in its own boundary: its fallback first", () => {
    const html = renderToStaticMarkup(
      <AtHand value={undefined} load={() => new Promise<string>(() => {})} fallback={<p>Loading</p>}>
        {(value) => <b>{value}</b>}
      </AtHand>,
    );
    expect(html).toContain("<p>Loading</p>");
    expect(html).not.toContain("<b>");
  });
});
