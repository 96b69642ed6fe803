import type { Metadata } from "next";
import "./globals.css";

// Every page reads live configuration, the signed-in person and upstream state: nothing is prerendered.
export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: { default: "Linkdesk", template: "%s · Linkdesk" },
  description: "Operate the bank connections held with the linking API",
  robots: { index: false, follow: false },
  icons: { icon: "/favicon.svg" },
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen">{children}</body>
    </html>
  );
}
