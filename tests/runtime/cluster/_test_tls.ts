/**
 * Throwaway TLS material for tests, made with `openssl` into a directory
 * the test owns: a CA, a server certificate it signs for `IP:127.0.0.1`,
 * and a second, unrelated CA that must not be trusted in its place.
 *
 * @module
 */

/** PEM texts of the test's TLS material. */
export interface TestTls {
  /** The CA that signs the server certificate. */
  caPem: string;
  /** Another CA, which did not sign the server certificate. */
  otherCaPem: string;
  /** The server certificate, for `IP:127.0.0.1`. */
  certPem: string;
  /** The server certificate's private key (PKCS #8). */
  keyPem: string;
}

/**
 * Makes the TLS material in `dir` (P-256 keys, valid for one day).
 *
 * @param dir A directory the caller removes.
 * @returns The PEM texts.
 * @throws {Error} If `openssl` is not on PATH or fails.
 */
export async function makeTestTls(dir: string): Promise<TestTls> {
  const ext = `${dir}/server.ext`;
  await Deno.writeTextFile(
    ext,
    [
      "subjectAltName=IP:127.0.0.1",
      "basicConstraints=critical,CA:FALSE",
      "keyUsage=critical,digitalSignature",
      "extendedKeyUsage=serverAuth",
    ].join("\n") + "\n",
  );
  for (const name of ["ca", "other-ca"]) {
    await openssl(
      ["req", "-x509", ...P256, "-keyout", `${dir}/${name}.key`]
        .concat(["-out", `${dir}/${name}.crt`, "-days", "1"])
        .concat(["-subj", `/CN=rill test ${name}`])
        .concat(["-addext", "basicConstraints=critical,CA:TRUE"])
        .concat(["-addext", "keyUsage=critical,keyCertSign,cRLSign"]),
    );
  }
  await openssl(
    ["req", ...P256, "-keyout", `${dir}/server.key`]
      .concat(["-out", `${dir}/server.csr`, "-subj", "/CN=127.0.0.1"]),
  );
  await openssl(
    ["x509", "-req", "-in", `${dir}/server.csr`, "-CA", `${dir}/ca.crt`]
      .concat(["-CAkey", `${dir}/ca.key`, "-CAcreateserial"])
      .concat(["-out", `${dir}/server.crt`, "-days", "1", "-extfile", ext]),
  );
  const read = (name: string): Promise<string> =>
    Deno.readTextFile(`${dir}/${name}`);
  return {
    caPem: await read("ca.crt"),
    otherCaPem: await read("other-ca.crt"),
    certPem: await read("server.crt"),
    keyPem: await read("server.key"),
  };
}

const P256 = [
  "-newkey",
  "ec",
  "-pkeyopt",
  "ec_paramgen_curve:P-256",
  "-nodes",
];

async function openssl(args: string[]): Promise<void> {
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command("openssl", { args, stdin: "null" })
      .output();
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new Error(
        "the Kubernetes discovery tests need openssl on PATH to make a " +
          "throwaway CA and server certificate",
      );
    }
    throw e;
  }
  if (!output.success) {
    const stderr = new TextDecoder().decode(output.stderr);
    throw new Error(`openssl ${args[0]} failed: ${stderr}`);
  }
}
