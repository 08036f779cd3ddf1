/** What the operator sees of an issued token: everything but the secret and its hash. */
export interface TokenRecord {
  /** Service-assigned id of the credential, stable across rotations; used to rotate and revoke it. */
  readonly id: string;
  /** The organization the token grants access to (spec §5.2: one token, one organization). */
  readonly orgId: string;
  /** The operator's free-text name for it, e.g. `"Okta"`, when one was given at issue. */
  readonly label?: string;
  /**
   * The first characters of the current token (its fixed prefix and a few random characters), so
   * an operator can tell which credential a configuration holds. Too short to guess the rest.
   *
   * @example "scimkit_q3Xz"
   */
  readonly prefix: string;
  /**
   * A non-secret id of the current secret (`secretIdOf` its digest), different after every
   * rotation. The OAuth token endpoint writes it into each access token it issues, and those
   * access tokens verify only while it is the current secret's id (or `previousSecretId` within
   * the grace period): rotating or revoking the secret ends them at once, whatever the clocks say.
   */
  readonly secretId: string;
  /** ISO 8601 time the credential was issued. Rotation keeps it. */
  readonly createdAt: string;
  /** ISO 8601 time of the last rotation; absent when never rotated. */
  readonly rotatedAt?: string;
  /**
   * ISO 8601 time the current secret last verified, to a resolution the store chooses (a minute
   * by default); absent when it has not been used since it was issued or rotated.
   */
  readonly lastUsedAt?: string;
  /**
   * ISO 8601 time from which the current secret no longer verifies (RFC 6750 §3.1
   * `invalid_token`: the request answers 401); absent when it does not expire. Set at issue or
   * rotation, checked on every verify.
   */
  readonly expiresAt?: string;
  /**
   * ISO 8601 time until which the secret replaced by the last rotation still verifies, when that
   * rotation gave a grace period (so an identity provider can be reconfigured without a gap);
   * absent when there is none or it has ended.
   */
  readonly previousSecretValidUntil?: string;
  /** The `secretId` of the secret replaced by the last rotation, while `previousSecretValidUntil` is. */
  readonly previousSecretId?: string;
}
