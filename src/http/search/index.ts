/**
 * `scimkit/cursor`: the sealed cursors behind the router's RFC 9865 cursor paging, for list
 * endpoints of your own. `sealCursor` turns a page's position into an opaque string, MACed with
 * your secret and bound to the query it came from; `openCursor` gives the position back, or
 * `undefined` for a cursor that was edited, forged or issued for another query — so a client can
 * neither move nor replay it. The secret makes cursors unforgeable: give every process of a
 * deployment the same one (the router's `cursorSecret` is such a secret).
 */
export { openCursor, sealCursor } from "./sealed-cursor.js";
export type { CursorField } from "./sealed-cursor.js";
