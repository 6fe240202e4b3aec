// The documentation as one reader meets it: the README first, then docs/ in
// the order of the README's map, then CONTRIBUTING.md. The block runner
// (tests/docs_test.ts) runs their shell blocks in this order; the name and
// link checks (tests/docs_names_test.ts) read every one of them.

export const DOCS = [
  "README.md",
  "docs/install.md",
  "docs/hosts.md",
  "docs/tools.md",
  "docs/oversight.md",
  "docs/listening.md",
  "docs/code-mode.md",
  "docs/resources.md",
  "docs/hermes-plugin.md",
  "docs/cli.md",
  "docs/networks.md",
  "docs/diagnose.md",
  "docs/security.md",
  "docs/performance.md",
  "docs/choices.md",
  "docs/architecture.md",
  "CONTRIBUTING.md",
] as const;
