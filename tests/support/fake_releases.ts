/**
 * A loopback stand-in for tinyagent's GitHub releases, for testing install.sh.
 *
 * `buildFakeReleases()` makes real release archives (tar.gz built with the system `tar`) whose
 * `tinyagent` is a small shell script, and `serveFakeReleases()` serves them with GitHub's URL
 * layout under `<url>`:
 *
 *   <url>/latest                    302 to <url>/tag/v<latest>
 *   <url>/tag/v<version>            200 (a stub HTML page)
 *   <url>/download/v<version>/<f>   the asset <f>, SHA256SUMS, or the attestation bundle
 *
 * Every request's path is kept in `requests`, so tests can see which asset was asked for. It serves
 * plain http, or https with a certificate a test gives it (`tls`), and can send `/latest` and the
 * downloads on to another server (`redirectTo`), as GitHub sends downloads to another host.
 *
 * `writeFakeGh()` and `writeFakeLdd()` put stand-ins for `gh` and `ldd` in a directory that a test
 * puts on the installer's PATH; `writeRecorder()` a wrapper that records a real tool's arguments.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

export const FAKE_LATEST = "1.3.0";
/** A release whose `tinyagent --version` fails (exit 1). */
export const BROKEN_VERSION = "0.9.0";
export const FAKE_VERSIONS = ["1.2.3", FAKE_LATEST, BROKEN_VERSION] as const;
export const FAKE_TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
] as const;
export const WINDOWS_TARGET = "x86_64-pc-windows-msvc";

/** The repository the fake releases, and their attestations, belong to (install.sh's default). */
export const FAKE_REPO = "tinyagent/tinyagent";
/** The path prefix the server mimics (GitHub's `/<owner>/<repo>/releases`). */
export const RELEASES_PATH = `/${FAKE_REPO}/releases`;

export function assetName(version: string, target: string): string {
  return `tinyagent-${version}-${target}.tar.gz`;
}

/** The release asset holding the attestation bundle (what release.yml uploads). */
export function bundleName(version: string): string {
  return `tinyagent-${version}.intoto.jsonl`;
}

/** What a fake `tinyagent --version` prints: the real binary's four lines. */
export function fakeVersionOutput(version: string, target: string): string {
  const commit = "0123456789abcdef0123456789abcdef01234567";
  return `tinyagent ${version}\ntarget ${target}\ndeno 2.9.6\ncommit ${commit}\n`;
}

/** The `tinyagent` script put in each fake archive; `forged` marks an attacker's replacement. */
export function fakeBinary(version: string, target: string, forged = false): string {
  const versionCase = version === BROKEN_VERSION
    ? ['  echo "tinyagent: cannot start (fake failure)" >&2', "  exit 1"]
    : [`  printf '${fakeVersionOutput(version, target).replaceAll("\n", "\\n")}'`, "  exit 0"];
  return [
    "#!/bin/sh",
    `# ${forged ? "forged" : "fake"} tinyagent ${version} for ${target}`,
    'if [ "${1:-}" = "--version" ]; then',
    ...versionCase,
    "fi",
    `echo "fake tinyagent ${version} (${target}): $*"`,
    "",
  ].join("\n");
}

export interface FakeRelease {
  version: string;
  /** Asset name → contents. */
  assets: Map<string, Uint8Array>;
  /** `<sha256>  <asset name>` for every asset, as sha256sum writes them. */
  sums: Map<string, string>;
  /** Tar.gz asset name → an attacker's archive of the same name (its `tinyagent` works too). */
  forged: Map<string, Uint8Array>;
  /**
   * The attestation bundle: one JSON line per attested asset, naming the repository and the
   * asset's SHA-256. Real bundles are Sigstore-signed DSSE envelopes; the fake gh only matches
   * digest and repository, standing in for a signature check no attacker can pass.
   */
  bundle: string;
}

export type FakeReleases = Map<string, FakeRelease>;

function sha256Hex(bytes: Uint8Array): string {
  return bytesToHex(sha256(bytes));
}

async function run(cmd: string, args: string[], cwd: string): Promise<void> {
  const out = await new Deno.Command(cmd, { args, cwd, stdout: "null", stderr: "piped" }).output();
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
}

/** Builds the archives and checksums of every fake release (in a temp dir, removed afterwards). */
export async function buildFakeReleases(): Promise<FakeReleases> {
  const work = await Deno.makeTempDir({ prefix: "tinyagent-fake-releases-" });
  try {
    const releases: FakeReleases = new Map();
    const archive = async (version: string, target: string, forged: boolean) => {
      const dir = `${work}/${forged ? "forged" : "genuine"}-${version}-${target}`;
      await Deno.mkdir(dir);
      await Deno.writeTextFile(`${dir}/tinyagent`, fakeBinary(version, target, forged), { mode: 0o755 });
      await run("tar", ["-czf", `${dir}.tar.gz`, "-C", dir, "tinyagent"], work);
      return await Deno.readFile(`${dir}.tar.gz`);
    };
    for (const version of FAKE_VERSIONS) {
      const assets = new Map<string, Uint8Array>();
      const forged = new Map<string, Uint8Array>();
      for (const target of FAKE_TARGETS) {
        assets.set(assetName(version, target), await archive(version, target, false));
        forged.set(assetName(version, target), await archive(version, target, true));
      }
      // The installer never uses the Windows build nor the MCP bundles (Claude Desktop installs those);
      // they are there so SHA256SUMS looks as a real release's does.
      assets.set(
        `tinyagent-${version}-${WINDOWS_TARGET}.zip`,
        new TextEncoder().encode(`not really a zip (${version})\n`),
      );
      for (const os of ["linux", "macos", "windows"]) {
        assets.set(
          `tinyagent-${version}-${os}.mcpb`,
          new TextEncoder().encode(`not really a bundle (${version}, ${os})\n`),
        );
      }
      const sums = new Map<string, string>();
      let bundle = "";
      for (const [name, bytes] of assets) {
        sums.set(name, `${sha256Hex(bytes)}  ${name}`);
        const subject = { name, digest: { sha256: sha256Hex(bytes) } };
        bundle += JSON.stringify({ repo: FAKE_REPO, subject }) + "\n";
      }
      releases.set(version, { version, assets, sums, forged, bundle });
    }
    return releases;
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

export interface ServeOptions {
  /** Serve SHA256SUMS with a wrong checksum for every tar.gz asset. */
  corruptChecksum?: boolean;
  /** Answer 404 for SHA256SUMS. */
  dropSums?: boolean;
  /** Leave the tar.gz assets' lines out of SHA256SUMS (the Windows line stays). */
  dropLines?: boolean;
  /** Answer 404 for the attestation bundle, as a mirror that does not carry it would. */
  dropBundle?: boolean;
  /**
   * Serve an attacker's tar.gz assets with a SHA256SUMS that matches them, as if both were
   * replaced; the attestation bundle stays the genuine one, which no attacker can sign anew.
   */
  forgeArchives?: boolean;
  /**
   * Send the first bytes of tar.gz assets, then hold the response open until `release()` is
   * called (to interrupt the installer mid-download).
   */
  stallAssets?: boolean;
  /** Serve https with this certificate (its names must include 127.0.0.1) instead of plain http. */
  tls?: { certPem: string; keyPem: string };
  /**
   * Answer `/latest` and every `/download/...` with a 302 to the same path under this base URL (another
   * server's `url`); tag pages are still served here.
   */
  redirectTo?: string;
  /** Redirect `/latest` with a Location that is only a path, as some mirrors do (GitHub's is a URL). */
  relativeRedirects?: boolean;
}

export interface FakeReleaseServer extends AsyncDisposable {
  /** Base URL to use as TINYAGENT_DOWNLOAD_URL (no trailing slash). */
  url: string;
  /** Paths (relative to `url`) of all requests so far, e.g. `/download/v1.3.0/SHA256SUMS`. */
  requests: string[];
  /** The User-Agent header of each request, in the same order as `requests`. */
  userAgents: string[];
  /** Resolves when a request for a path ending in `suffix` has arrived. */
  waitForRequest(suffix: string): Promise<void>;
  /** Ends responses held open by `stallAssets`. */
  release(): void;
  close(): Promise<void>;
}

function corrupt(line: string): string {
  const first = line[0] === "0" ? "1" : "0";
  return first + line.slice(1);
}

function sumsFile(release: FakeRelease, options: ServeOptions): string {
  const lines: string[] = [];
  for (const [name, genuine] of release.sums) {
    const isTarball = name.endsWith(".tar.gz");
    if (isTarball && options.dropLines) continue;
    const forged = release.forged.get(name);
    const line = forged && options.forgeArchives ? `${sha256Hex(forged)}  ${name}` : genuine;
    lines.push(isTarball && options.corruptChecksum ? corrupt(line) : line);
  }
  return lines.join("\n") + "\n";
}

/** Serves `releases` on 127.0.0.1 (a free port). Close it with `close()` or `await using`. */
export function serveFakeReleases(
  releases: FakeReleases,
  options: ServeOptions = {},
): FakeReleaseServer {
  const requests: string[] = [];
  const userAgents: string[] = [];
  const waiters: { suffix: string; resolve: () => void }[] = [];
  const { promise: released, resolve: release } = Promise.withResolvers<void>();
  let origin = "";

  const handler = (req: Request): Response => {
    const path = new URL(req.url).pathname;
    if (!path.startsWith(RELEASES_PATH + "/")) return new Response("not found\n", { status: 404 });
    const rel = path.slice(RELEASES_PATH.length);
    requests.push(rel);
    userAgents.push(req.headers.get("user-agent") ?? "");
    for (const w of waiters.filter((w) => rel.endsWith(w.suffix))) w.resolve();

    if (options.redirectTo && (rel === "/latest" || rel.startsWith("/download/"))) {
      return new Response(null, { status: 302, headers: { location: `${options.redirectTo}${rel}` } });
    }
    if (rel === "/latest") {
      const tagPath = `${RELEASES_PATH}/tag/v${FAKE_LATEST}`;
      return new Response(null, {
        status: 302,
        headers: { location: options.relativeRedirects ? tagPath : `${origin}${tagPath}` },
      });
    }
    const tag = rel.match(/^\/tag\/v([^/]+)$/);
    if (tag && releases.has(tag[1])) {
      return new Response(`<html><body>tinyagent v${tag[1]}</body></html>\n`, {
        headers: { "content-type": "text/html" },
      });
    }
    const dl = rel.match(/^\/download\/v([^/]+)\/([^/]+)$/);
    const release = dl ? releases.get(dl[1]) : undefined;
    if (dl && release) {
      const file = dl[2];
      if (file === "SHA256SUMS" && !options.dropSums) {
        return new Response(sumsFile(release, options), { headers: { "content-type": "text/plain" } });
      }
      if (file === bundleName(release.version) && !options.dropBundle) {
        return new Response(release.bundle, { headers: { "content-type": "application/jsonl" } });
      }
      const bytes = (options.forgeArchives ? release.forged.get(file) : undefined) ??
        release.assets.get(file);
      if (bytes && options.stallAssets && file.endsWith(".tar.gz")) {
        const body = new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(bytes.slice(0, 16));
            await released;
            controller.close();
          },
        });
        return new Response(body, { headers: { "content-type": "application/octet-stream" } });
      }
      if (bytes) {
        return new Response(bytes.slice(), { headers: { "content-type": "application/octet-stream" } });
      }
    }
    return new Response("not found\n", { status: 404 });
  };

  const listen = { hostname: "127.0.0.1", port: 0, onListen() {} };
  const server = options.tls
    ? Deno.serve({ ...listen, cert: options.tls.certPem, key: options.tls.keyPem }, handler)
    : Deno.serve(listen, handler);
  origin = `${options.tls ? "https" : "http"}://127.0.0.1:${server.addr.port}`;

  let closed: Promise<void> | undefined;
  const close = () => {
    release();
    closed ??= server.shutdown().then(() => server.finished);
    return closed;
  };
  return {
    url: `${origin}${RELEASES_PATH}`,
    requests,
    userAgents,
    waitForRequest(suffix) {
      if (requests.some((r) => r.endsWith(suffix))) return Promise.resolve();
      const { promise, resolve } = Promise.withResolvers<void>();
      waiters.push({ suffix, resolve });
      return promise;
    },
    release: () => release(),
    close,
    [Symbol.asyncDispose]: close,
  };
}

// --- stand-ins for tools on the installer's PATH --------------------------------------------------

/** `text` as one word for a POSIX shell. */
function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

export interface FakeGhOptions {
  /** Every run's arguments, one line per run, are appended to this file. */
  log: string;
  /** The JSON lines GitHub's attestation API would answer with (gh without --bundle). */
  api: string;
  /** Whether gh is logged in; without a bundle gh needs that, and exits 4 when it is not. */
  loggedIn?: boolean;
}

/**
 * Writes `<dir>/gh`, a stand-in for `gh attestation verify FILE --repo OWNER/NAME [--bundle FILE]`:
 * it passes (exit 0) when the bundle, or else the API's answer, attests FILE's SHA-256 for that
 * repository, and fails (exit 1) otherwise, each with gh's kind of message. Anything else is an
 * unknown command. It hashes with the sha256sum or shasum on the PATH it is given.
 */
export async function writeFakeGh(dir: string, options: FakeGhOptions): Promise<void> {
  const api = `${dir}/gh-api.jsonl`;
  await Deno.writeTextFile(api, options.api);
  const fromApi = options.loggedIn === false
    ? '  echo "To get started with GitHub CLI, please run:  gh auth login" >&2\n  exit 4'
    : `  bundle=${quote(api)}`;
  const script = `#!/bin/sh
# fake gh (tests/support/fake_releases.ts)
printf '%s\\n' "$*" >> ${quote(options.log)}
if [ "\${1:-} \${2:-}" != "attestation verify" ]; then
  echo "unknown command '\${1:-}' for gh" >&2
  exit 1
fi
shift 2
file="" repo="" bundle=""
while [ "$#" -gt 0 ]; do
  case $1 in
  --repo) repo=$2; shift 2 ;;
  --bundle) bundle=$2; shift 2 ;;
  -*) echo "unknown flag: $1" >&2; exit 1 ;;
  *) file=$1; shift ;;
  esac
done
if [ -z "$bundle" ]; then
${fromApi}
fi
if command -v sha256sum >/dev/null 2>&1; then sum=$(sha256sum "$file"); else sum=$(shasum -a 256 "$file"); fi
digest=\${sum%% *}
echo "Loaded digest sha256:$digest for file://$file"
if grep -F "\\"repo\\":\\"$repo\\"" "$bundle" | grep -qF "\\"sha256\\":\\"$digest\\""; then
  echo "✓ Verification succeeded!"
  exit 0
fi
echo "Error: failed to verify the attestation: no attestation of sha256:$digest by $repo" >&2
exit 1
`;
  await Deno.writeTextFile(`${dir}/gh`, script, { mode: 0o755 });
}

/**
 * Writes `<dir>/<name>`, a wrapper that appends its arguments to `log` (one line per run, each
 * argument followed by a tab) and then runs the real tool at `real` with them.
 */
export async function writeRecorder(dir: string, name: string, real: string, log: string): Promise<void> {
  const script = `#!/bin/sh
# records its arguments, then runs ${name} (tests/support/fake_releases.ts)
printf '%s\\t' "$@" >> ${quote(log)}
printf '\\n' >> ${quote(log)}
exec ${quote(real)} "$@"
`;
  await Deno.writeTextFile(`${dir}/${name}`, script, { mode: 0o755 });
}

/** Writes `<dir>/ldd`, answering `ldd --version` as musl's ldd or as glibc's does. */
export async function writeFakeLdd(dir: string, libc: "musl" | "glibc"): Promise<void> {
  const answer = libc === "musl"
    ? 'printf "musl libc (x86_64)\\nVersion 1.2.5\\nDynamic Program Loader\\n" >&2\nexit 1'
    : 'echo "ldd (GNU libc) 2.39"';
  await Deno.writeTextFile(
    `${dir}/ldd`,
    `#!/bin/sh\n# fake ldd (tests/support/fake_releases.ts)\n${answer}\n`,
    {
      mode: 0o755,
    },
  );
}

/** The attestation API's answer for `releases`: every genuine asset of every version. */
export function attestationApi(releases: FakeReleases): string {
  return [...releases.values()].map((release) => release.bundle).join("");
}
