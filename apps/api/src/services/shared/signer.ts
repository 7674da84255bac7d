/** A private key ready to sign, with the public half the JWKS publishes. */
export interface Signer {
  /** The first 16 hex digits of the SHA-256 of the raw 32-byte public key. */
  kid: string;
  /** The raw public key, base64url (the JWK's `x`). */
  publicKey: string;
  /** base64url of the Ed25519 signature over `bytes`. */
  sign(bytes: Buffer): string;
  /** The PKCS#8 PEM, for sealing a generated key; null for a key given in SVC_SIGNING_KEY (never stored). */
  pem: string | null;
}
