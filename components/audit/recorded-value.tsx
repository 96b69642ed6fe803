import type { RecordedView } from "@/lib/audit/recorded";

/**
 * One recorded input, before or after, as text: labels where the site shows labels, the recorded code on hover (an
 * `<abbr>`, so it is in the page for screen readers and find-in-page too), keys and values as a list of terms.
 */
export function RecordedValue({ view }: { view: RecordedView }) {
  switch (view.kind) {
    case "text":
      if (view.raw && view.raw !== view.text) {
        return (
          <abbr title={view.raw} className="cursor-help no-underline decoration-dotted hover:underline">
            {view.text}
          </abbr>
        );
      }
      return <span className={view.missing ? "text-slate-500" : undefined}>{view.text}</span>;
    case "list":
      return (
        <ul className="list-disc space-y-0.5 pl-4">
          {view.items.map((item, i) => (
            <li key={i}>
              <RecordedValue view={item} />
            </li>
          ))}
        </ul>
      );
    case "fields":
      return (
        <dl className="grid grid-cols-[max-content_1fr] gap-x-3 gap-y-0.5">
          {view.fields.map((field) => (
            <div key={field.key} className="contents">
              <dt className="text-slate-500" title={field.key === field.label ? undefined : field.key}>
                {field.label}
              </dt>
              <dd className="min-w-0 break-words text-slate-800">
                <RecordedValue view={field.value} />
              </dd>
            </div>
          ))}
        </dl>
      );
  }
}
