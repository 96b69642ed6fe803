import Link from "next/link";
import { PageHeader } from "@/components/ui/page-header";
import { NAV_ITEMS } from "./nav-items";

/** A section that exists in the navigation but is not built yet: says so plainly instead of pretending. */
export function ComingSoon({ href }: { href: string }) {
  const item = NAV_ITEMS.find((i) => i.href === href);
  return (
    <>
      <PageHeader title={item?.label ?? "Not available"} description={item?.description} />
      <div className="max-w-2xl rounded-lg border border-dashed border-slate-300 bg-white px-6 py-8 text-sm text-slate-600">
        <p className="font-medium text-slate-800">This section is not available yet.</p>
        <p className="mt-1">
          It arrives in a coming release. Meanwhile,{" "}
          <Link className="text-indigo-700 underline" href="/status">
            Status
          </Link>{" "}
          shows whether Linkdesk can reach the upstream.
        </p>
      </div>
    </>
  );
}
