/** What every page is given: the client of the analytics interface, signed in. */
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { ApiClient } from "./api-client.js";

export const ApiContext = createContext<ApiClient | undefined>(undefined);

export function useApi(): ApiClient {
  const api = useContext(ApiContext);
  if (!api) throw new Error("useApi outside the signed-in console");
  return api;
}
