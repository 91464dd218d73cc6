/**
 * Throwaway TLS material for tests, made in-process with WebCrypto and
 * `@peculiar/x509`, so the suite runs no external tool: a CA, a server
 * certificate it signs for `IP:127.0.0.1`, and a second, unrelated CA that
 * must not be trusted in its place.
 *
 * `@peculiar/x509` resolves its algorithm providers through tsyringe, which
 * needs a Reflect metadata polyfill installed before it loads: hence the
 * side-effect import of `reflect-metadata` first. ES modules evaluate their
 * imports in order, so it runs before `@peculiar/x509`. Both are test-only
 * imports; nothing under `mod.ts` reaches this file.
 *
 * @module
 */

import "reflect-metadata";
import * as x509 from "@peculiar/x509";

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
 * Makes the TLS material: P-256 keys, certificates valid from five minutes
 * ago for one day.
 *
 * @param options `serverExpired`: the server certificate expired an hour
 * ago (the CAs stay valid).
 * @returns The PEM texts.
 */
export async function makeTestTls(
  options: { serverExpired?: boolean } = {},
): Promise<TestTls> {
  const notBefore = new Date(Date.now() - 5 * 60_000);
  const notAfter = new Date(notBefore.getTime() + 24 * 60 * 60_000);
  const validity = { notBefore, notAfter };
  const ca = await makeCa("rill test ca", validity);
  const otherCa = await makeCa("rill test other-ca", validity);

  const keys = await newKeys();
  const hour = 60 * 60_000;
  const cert = await x509.X509CertificateGenerator.create({
    ...(options.serverExpired
      ? {
        notBefore: new Date(Date.now() - 2 * hour),
        notAfter: new Date(Date.now() - hour),
      }
      : validity),
    subject: "CN=127.0.0.1",
    issuer: ca.cert.subjectName,
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.SubjectAlternativeNameExtension([
        { type: "ip", value: "127.0.0.1" },
      ]),
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(ca.keys.publicKey),
    ],
  });
  const pkcs8 = await crypto.subtle.exportKey("pkcs8", keys.privateKey);
  return {
    caPem: ca.cert.toString("pem"),
    otherCaPem: otherCa.cert.toString("pem"),
    certPem: cert.toString("pem"),
    keyPem: x509.PemConverter.encode(pkcs8, "PRIVATE KEY"),
  };
}

const SIGNING: EcdsaParams = { name: "ECDSA", hash: "SHA-256" };

/** When a certificate is valid. */
interface Validity {
  notBefore: Date;
  notAfter: Date;
}

/** A fresh, extractable P-256 key pair (the private key is exported). */
function newKeys(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey(
    { name: "ECDSA", namedCurve: "P-256" },
    true,
    ["sign", "verify"],
  );
}

/** A self-signed CA that may sign certificates and CRLs only. */
async function makeCa(
  commonName: string,
  validity: Validity,
): Promise<{ cert: x509.X509Certificate; keys: CryptoKeyPair }> {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    ...validity,
    name: `CN=${commonName}`,
    keys,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert, keys };
}
