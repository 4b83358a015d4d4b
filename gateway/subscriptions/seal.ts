// Sealing a new subscription key until its one display (and the checkout cookie): AES-256-GCM under a key derived
// (HKDF-SHA256) from STRIPE_WEBHOOK_SECRET, bound to a context (the checkout session id). Never logs or stores the plaintext.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const INFO = "filing-data-service/subscription-key-seal/v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals and opens short secrets. Why sealed, not plain: the store (a folder or an S3 bucket, with its backups)
 * must never hold a usable key, only hashes; the sealing key lives only in the gateway's environment, so a copy of
 * the store cannot reveal a key that is still waiting to be shown. After the display the sealed copy is deleted.
 */
export class Sealer {
  readonly #key: Buffer;

  constructor(secret: string) {
    this.#key = Buffer.from(hkdfSync("sha256", secret, "", INFO, 32));
  }

  /** base64url(iv ‖ tag ‖ ciphertext), authenticated together with `context` (it cannot be moved to another session). */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
  }

  /** The plaintext, or null when the box was sealed under another secret or context, or tampered with. */
  open(sealed: string, context: string): string | null {
    const bytes = Buffer.from(sealed, "base64url");
    if (bytes.length <= IV_BYTES + TAG_BYTES) return null;
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.#key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
    } catch {
      return null;
    }
  }
}
