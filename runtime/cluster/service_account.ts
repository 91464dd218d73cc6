/**
 * A pod's service-account files, as Kubernetes mounts them: the bearer
 * token, the cluster CA and the namespace, read with errors that name the
 * file; and the account's name, from the token.
 *
 * The token is projected and rotated by the kubelet (by default about
 * hourly), so read it for each request rather than once.
 *
 * @module
 */

import { KubeConfigError } from "./kube_errors.ts";

/** Where Kubernetes mounts a pod's service-account files. */
export const SERVICE_ACCOUNT_DIR =
  "/var/run/secrets/kubernetes.io/serviceaccount";

/**
 * Reads the service-account bearer token (`DIR/token`), trimmed.
 *
 * @param dir The service-account directory.
 * @returns The token.
 * @throws {KubeConfigError} If the file is missing, unreadable or empty.
 *
 * @example Usage
 * ```ts
 * import { readServiceAccountToken } from "./service_account.ts";
 * import { KubeConfigError } from "./kube_errors.ts";
 * import { assertEquals, assertRejects } from "@std/assert";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/token`, "abc\n");
 * assertEquals(await readServiceAccountToken(dir), "abc");
 * await Deno.remove(`${dir}/token`);
 * await assertRejects(() => readServiceAccountToken(dir), KubeConfigError);
 * await Deno.remove(dir);
 * ```
 */
export async function readServiceAccountToken(dir: string): Promise<string> {
  return await readNonEmpty(`${dir}/token`, "service-account token");
}

/**
 * Reads the pod's namespace (`DIR/namespace`), trimmed.
 *
 * @param dir The service-account directory.
 * @returns The namespace.
 * @throws {KubeConfigError} If the file is missing, unreadable or empty.
 *
 * @example Usage
 * ```ts
 * import { readServiceAccountNamespace } from "./service_account.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/namespace`, "rill");
 * assertEquals(await readServiceAccountNamespace(dir), "rill");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function readServiceAccountNamespace(
  dir: string,
): Promise<string> {
  return await readNonEmpty(`${dir}/namespace`, "namespace");
}

/**
 * Reads the cluster CA bundle (`DIR/ca.crt`, PEM).
 *
 * @param dir The service-account directory.
 * @returns The PEM text, one or more certificates.
 * @throws {KubeConfigError} If the file is missing, unreadable or holds no
 * PEM certificate.
 *
 * @example Usage
 * ```ts
 * import { readClusterCa } from "./service_account.ts";
 * import { KubeConfigError } from "./kube_errors.ts";
 * import { assertRejects } from "@std/assert";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/ca.crt`, "not a certificate");
 * await assertRejects(() => readClusterCa(dir), KubeConfigError);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function readClusterCa(dir: string): Promise<string> {
  const file = `${dir}/ca.crt`;
  const pem = await readNonEmpty(file, "cluster CA");
  // Deno.createHttpClient ignores text that is not a certificate, which
  // would turn a wrong file into a puzzling TLS failure later.
  if (!pem.includes("-----BEGIN CERTIFICATE-----")) {
    throw new KubeConfigError(`${file} holds no PEM certificate`, file);
  }
  return pem;
}

/**
 * The service account a token belongs to, `namespace/name`, read from the
 * token's `sub` claim (`system:serviceaccount:NS:NAME`). The token is not
 * verified: the name only goes into error messages.
 *
 * @param token A service-account JWT.
 * @returns `namespace/name`, or `undefined` if the token does not say.
 *
 * @example Usage
 * ```ts
 * import { serviceAccountOfToken } from "./service_account.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const claims = { sub: "system:serviceaccount:rill:rill-master" };
 * const payload = btoa(JSON.stringify(claims)).replace(/=+$/, "");
 * assertEquals(serviceAccountOfToken(`e30.${payload}.sig`), "rill/rill-master");
 * assertEquals(serviceAccountOfToken("opaque"), undefined);
 * ```
 */
export function serviceAccountOfToken(token: string): string | undefined {
  const payload = token.split(".")[1];
  if (payload === undefined) return undefined;
  try {
    const base64 = payload.replace(/-/g, "+").replace(/_/g, "/");
    const claims = JSON.parse(
      atob(base64.padEnd(base64.length + (4 - base64.length % 4) % 4, "=")),
    );
    const match = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(
      String(claims?.sub ?? ""),
    );
    return match ? `${match[1]}/${match[2]}` : undefined;
  } catch {
    return undefined;
  }
}

async function readNonEmpty(file: string, what: string): Promise<string> {
  let text: string;
  try {
    text = (await Deno.readTextFile(file)).trim();
  } catch (e) {
    const why = e instanceof Deno.errors.NotFound
      ? "no such file (is the service account token mounted? " +
        "automountServiceAccountToken may be false)"
      : (e as Error).message;
    throw new KubeConfigError(`cannot read the ${what} ${file}: ${why}`, file, {
      cause: e,
    });
  }
  if (text === "") {
    throw new KubeConfigError(`the ${what} file ${file} is empty`, file);
  }
  return text;
}
