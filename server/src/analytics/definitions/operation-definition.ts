/**
 * The shape of one operation of the analytics interface as data: the single description from
 * which the router registers its routes, ajv compiles its validators and the OpenAPI 3.1
 * document is generated, so what is documented is what is checked is what is served.
 */

/** A JSON Schema (2020-12) object; references point at `#/components/schemas/{name}`. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** The HTTP methods the interface uses, lower-case as OpenAPI path items name them. */
export type HttpMethod = "get" | "post" | "patch" | "delete";

/**
 * Who may call an operation, checked before its input:
 * - `public`: no key (the OpenAPI document, accepting an invitation);
 * - `read`: any valid key — operator, admin or viewer;
 * - `write`: the operator or an admin user with role `admin` (a `viewer` gets 403); the handler
 *   applies the finer rules (e.g. only the operator changes an organization's status);
 * - `operator`: the operator key only.
 */
export type Access = "public" | "read" | "write" | "operator" | "setup";

/** A path or query parameter. */
export interface ParameterDefinition {
  /** What it means, for the documentation. */
  readonly description: string;
  /** Its schema; query values are converted to `integer` or `boolean` first when it says so. */
  readonly schema: JsonSchema;
  /** Query parameters only: whether it must be given. Default false. */
  readonly required?: boolean;
}

/** The body an operation reads. */
export interface BodyDefinition {
  /** What it is, for the documentation. */
  readonly description: string;
  /** Its schema; unknown fields are refused by the schema itself (`additionalProperties: false`). */
  readonly schema: JsonSchema;
}

/** A header of a response. */
export interface HeaderDefinition {
  readonly description: string;
  readonly schema: JsonSchema;
}

/** A success response of an operation (problems are added by the generator, see `problemStatuses`). */
export interface ResponseDefinition {
  /** What it means, for the documentation. */
  readonly description: string;
  /** Body schemas by media type; absent for a response without a body (204). */
  readonly content?: Readonly<Record<string, JsonSchema>>;
  /** Headers the response carries, e.g. `Location`. */
  readonly headers?: Readonly<Record<string, HeaderDefinition>>;
}

/** One operation: method, path, who may call it, its input and its success responses. */
export interface OperationDefinition {
  /** Unique name, also the key of its handler, e.g. `"listOrganizations"`. */
  readonly operationId: string;
  readonly method: HttpMethod;
  /** OpenAPI path template below the router's mount point, e.g. `"/organizations/{id}"`. */
  readonly path: string;
  /** The group it is documented under. */
  readonly tag: string;
  /** One line. */
  readonly summary: string;
  /** What it does, for a person: rules, defaults, errors worth knowing. */
  readonly description: string;
  readonly access: Access;
  /** Path parameters by name; a value that does not match its schema is 404 (nothing can have that id). */
  readonly pathParameters?: Readonly<Record<string, ParameterDefinition>>;
  /** Query parameters by name; any other parameter is refused with 400. */
  readonly query?: Readonly<Record<string, ParameterDefinition>>;
  /** The JSON body it reads, if any. */
  readonly body?: BodyDefinition;
  /** Success responses by status. */
  readonly responses: Readonly<Record<number, ResponseDefinition>>;
  /** Problem statuses particular to the operation (e.g. 409), beyond those its traits imply. */
  readonly problems?: Readonly<Record<number, string>>;
}
