/** The organization a page is about: a labelled select over the organizations the key sees. */
import { useApi } from "./context.js";
import { ErrorNotice } from "./error-notice.js";
import type { OrganizationList } from "./analytics-api-types.js";
import { useAsync } from "./use-async.js";

export function OrganizationPicker({
  value,
  onChange,
  id,
}: {
  readonly value: string | undefined;
  readonly onChange: (orgId: string) => void;
  readonly id: string;
}) {
  const api = useApi();
  const organizations = useAsync(() => api.get<OrganizationList>("/organizations", { limit: 1000 }), [api]);
  const list = organizations.value?.data ?? [];
  return (
    <div class="field">
      <label for={id}>Organization</label>
      <select id={id} value={value ?? ""} onChange={(event) => onChange(event.currentTarget.value)}>
        <option value="" disabled>
          {organizations.loading && list.length === 0 ? "Loading…" : "Choose an organization"}
        </option>
        {list.map((organization) => (
          <option key={organization.id} value={organization.id}>
            {organization.name} ({organization.id})
          </option>
        ))}
      </select>
      <ErrorNotice error={organizations.error} />
    </div>
  );
}
