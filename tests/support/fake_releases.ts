/**
 * A loopback stand-in for tinyagent's GitHub releases, for testing install.sh.
 *
 * `buildFakeReleases()` makes real release archives (tar.gz built with the system `tar`) whose
 * `tinyagent` is a small shell script, and `serveFakeReleases()` serves them with GitHub's URL
 * layout under `<url>`:
 *
 *   <url>/latest                    302 to <url>/tag/v<latest>
 *   <url>/tag/v<version>            200 (a stub HTML page)
 *   <url>/download/v<version>/<f>   the asset <f>, or SHA256SUMS
 *
 * Every request's path is kept in `requests`, so tests can see which asset was asked for.
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

/** The path prefix the server mimics (GitHub's `/<owner>/<repo>/releases`). */
export const RELEASES_PATH = "/tinyagent/tinyagent/releases";

export function assetName(version: string, target: string): string {
  return `tinyagent-${version}-${target}.tar.gz`;
}

/** The `tinyagent` script put in each fake archive. */
export function fakeBinary(version: string, target: string): string {
  const versionCase = version === BROKEN_VERSION
    ? ['  echo "tinyagent: cannot start (fake failure)" >&2', "  exit 1"]
    : [`  echo "tinyagent ${version}"`, "  exit 0"];
  return [
    "#!/bin/sh",
    `# fake tinyagent ${version} for ${target}`,
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
}

export type FakeReleases = Map<string, FakeRelease>;

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
    for (const version of FAKE_VERSIONS) {
      const assets = new Map<string, Uint8Array>();
      for (const target of FAKE_TARGETS) {
        const dir = `${work}/${version}-${target}`;
        await Deno.mkdir(dir);
        await Deno.writeTextFile(`${dir}/tinyagent`, fakeBinary(version, target), { mode: 0o755 });
        const name = assetName(version, target);
        await run("tar", ["-czf", `${work}/${name}`, "-C", dir, "tinyagent"], work);
        assets.set(name, await Deno.readFile(`${work}/${name}`));
      }
      // The installer never uses the Windows build; it is only there so SHA256SUMS looks real.
      assets.set(
        `tinyagent-${version}-${WINDOWS_TARGET}.zip`,
        new TextEncoder().encode(`not really a zip (${version})\n`),
      );
      const sums = new Map<string, string>();
      for (const [name, bytes] of assets) sums.set(name, `${bytesToHex(sha256(bytes))}  ${name}`);
      releases.set(version, { version, assets, sums });
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
  /**
   * Send the first bytes of tar.gz assets, then hold the response open until `release()` is
   * called (to interrupt the installer mid-download).
   */
  stallAssets?: boolean;
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
  for (const [name, line] of release.sums) {
    const isTarball = name.endsWith(".tar.gz");
    if (isTarball && options.dropLines) continue;
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

    if (rel === "/latest") {
      return new Response(null, {
        status: 302,
        headers: { location: `${origin}${RELEASES_PATH}/tag/v${FAKE_LATEST}` },
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
      const bytes = release.assets.get(file);
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

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
  origin = `http://127.0.0.1:${server.addr.port}`;

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
