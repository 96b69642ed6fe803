import { withStaff } from "@/lib/auth/with-staff";
import { csvExport } from "@/lib/http/csv-export";
import { streamLinksCsv } from "@/lib/links/list-csv";
import { parseLinkListParams } from "@/lib/links/list-params";

// The Links page's "Export CSV": every row of the filtered view in its order, the page number aside.
export const GET = withStaff(
  "read",
  { signIn: "Sign in to export the links.", mayNot: "read the links" },
  async (request) =>
    csvExport({
      filename: "links",
      parse: () => {
        const { params, dropped } = parseLinkListParams(request.nextUrl.searchParams);
        return { filters: params, dropped };
      },
      rows: (db, params) => streamLinksCsv(db, params),
    }),
);
