import Link from "next/link";
import { Callout } from "@/components/ui/callout";

export default function NotFound() {
  return (
    <div className="max-w-2xl">
      <Callout title="There is no page at this address">
        <Link className="text-indigo-700 underline" href="/links">
          Go to Links
        </Link>
      </Callout>
    </div>
  );
}
