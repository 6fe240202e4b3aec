// A private CA and a server certificate for tests and the bench, made with `openssl` at run time
// in a temporary directory, once per process. The server certificate names 127.0.0.1, 127.0.0.2
// and localhost. Nothing generated is committed; the directory is removed when the process ends.
//
// Everything goes through subprocesses (`sh`, `openssl`, `cat`), so it works under the bench's
// permissions too (--allow-run, but no --allow-read, and --allow-write only for bench/results).

export interface TestCertificates {
  /** The CA certificate, PEM: what a client trusts (`Deno.createHttpClient({ caCerts: [caPem] })`). */
  caPem: string;
  /** The CA certificate's file, for `DENO_CERT=<caFile>` in a child process's environment. */
  caFile: string;
  /** The server certificate (signed by the CA), PEM. */
  certPem: string;
  /** The server certificate's private key, PEM. */
  keyPem: string;
  /** The server certificate's and key's files, for a server in another process. */
  certFile: string;
  keyFile: string;
  /** The temporary directory holding the files. */
  dir: string;
}

// EC P-256 keys: generated instantly, and accepted by rustls (Deno) and OpenSSL (Node) alike.
const SCRIPT = `set -e
dir=$(mktemp -d "\${TMPDIR:-/tmp}/tinyagent-test-ca.XXXXXX")
cd "$dir"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca-key.pem -out ca.pem \\
  -days 7 -subj "/CN=tinyagent test CA" \\
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout server-key.pem -out server.csr \\
  -subj "/CN=localhost" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,IP:127.0.0.2,DNS:localhost\\nbasicConstraints=CA:FALSE\\n%s\\n%s\\n' \\
  'keyUsage=critical,digitalSignature,keyEncipherment' 'extendedKeyUsage=serverAuth' > ext.cnf
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -out server.pem -days 7 \\
  -extfile ext.cnf 2>/dev/null
openssl verify -CAfile ca.pem server.pem >/dev/null
printf '%s' "$dir"
`;

let cached: Promise<TestCertificates> | undefined;

async function run(program: string, args: string[]): Promise<string> {
  const output = await new Deno.Command(program, { args, stdout: "piped", stderr: "piped" }).output();
  const decoder = new TextDecoder();
  if (!output.success) {
    throw new Error(
      `${program} ${args.join(" ").slice(0, 80)} failed: ${decoder.decode(output.stderr).trim()}`,
    );
  }
  return decoder.decode(output.stdout);
}

async function generate(): Promise<TestCertificates> {
  const dir = (await run("sh", ["-c", SCRIPT])).trim();
  if (!dir.startsWith("/")) throw new Error(`openssl: unexpected output ${JSON.stringify(dir)}`);
  // The unload event cannot wait, so the directory goes synchronously.
  globalThis.addEventListener("unload", () => {
    try {
      new Deno.Command("rm", { args: ["-rf", dir], stdout: "null", stderr: "null" }).outputSync();
    } catch {
      // left in the temp directory
    }
  });
  const [caPem, certPem, keyPem] = await Promise.all(
    ["ca.pem", "server.pem", "server-key.pem"].map((file) => run("cat", [`${dir}/${file}`])),
  );
  return {
    caPem,
    caFile: `${dir}/ca.pem`,
    certPem,
    keyPem,
    certFile: `${dir}/server.pem`,
    keyFile: `${dir}/server-key.pem`,
    dir,
  };
}

/** The process's test CA and server certificate, made on first use. */
export function testCertificates(): Promise<TestCertificates> {
  cached ??= generate().catch((err) => {
    cached = undefined;
    throw err;
  });
  return cached;
}

/** A fetch client that trusts the test CA (close it with client.close()). */
export async function trustingClient(options: Deno.CreateHttpClientOptions = {}): Promise<Deno.HttpClient> {
  const { caPem } = await testCertificates();
  return Deno.createHttpClient({ ...options, caCerts: [caPem, ...(options.caCerts ?? [])] });
}
