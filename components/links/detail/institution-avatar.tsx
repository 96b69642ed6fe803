import { httpUrl } from "./safe-url";

/**
 * The institution's logo when the upstream gave an http(s) address, else its initial on a grey square. A plain <img>
 * (not next/image): avatars come from any host the upstream names, which next/image would have to be told about.
 */
export function InstitutionAvatar({ src, name, size = 40 }: { src: string | null | undefined; name: string; size?: number }) {
  const url = httpUrl(src);
  if (url) {
    // eslint-disable-next-line @next/next/no-img-element -- see above: arbitrary upstream hosts
    return <img src={url} alt="" width={size} height={size} referrerPolicy="no-referrer" loading="lazy" className="shrink-0 rounded bg-slate-100 object-contain" style={{ width: size, height: size }} />;
  }
  return (
    <span
      aria-hidden="true"
      data-testid="avatar-placeholder"
      className="inline-flex shrink-0 items-center justify-center rounded bg-slate-200 font-semibold text-slate-600"
      style={{ width: size, height: size }}
    >
      {Array.from(name.trim())[0]?.toUpperCase() ?? "?"}
    </span>
  );
}
