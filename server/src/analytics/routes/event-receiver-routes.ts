/**
 * RFC 9967 event receivers as a managed resource (issue 20: addition to spec §4.6): list, register,
 * get and remove the receivers of an organization's Security Event Tokens, with where each one's
 * delivery stands, through the host's `SecurityEventDelivery`. The `Authorization` value a receiver
 * is registered with is a secret: it is never rendered (`hasAuthorization` says whether there is
 * one), and the audit trail records the receiver's id only.
 */
import {
  InvalidEventReceiverError,
  type EventReceiver,
  type EventReceiverInput,
  type ReceiverStart,
  type SecurityEventDelivery,
  type SecurityEventForm,
  type SecurityEventUri,
} from "scimkit/events";
import { conflict, invalidRequest, notFound } from "../analytics-problem.js";
import type { AnalyticsCall, AnalyticsHandlers } from "../analytics-call.js";
import type { AnalyticsDependencies } from "../analytics-dependencies.js";
import type { OrganizationStore } from "../analytics-store.js";
import { eventReceiverInputErrors, fieldOfInvalidReceiver } from "../event-receiver-input.js";
import { renderEventReceiver } from "../render-event-receiver.js";
import { sendJson, sendNoContent } from "../send-json.js";

type EventReceiverHandlers = Pick<
  AnalyticsHandlers,
  "listOrganizationEventReceivers" | "addOrganizationEventReceiver" | "getOrganizationEventReceiver" | "removeOrganizationEventReceiver"
>;

const noSuchOrganization = (): Error => notFound("There is no organization with this id among those you may see.");
const noSuchReceiver = (): Error => notFound("The organization has no event receiver with this id.");

const noDelivery = (): Error =>
  notFound(
    "Security event delivery is not configured on this service, so there are no event receivers: it is the `securityEvents` option of the analytics router (the host's `securityEventDelivery`).",
  );

/** The body of a registration, as its schema (`EventReceiverInput`) let it through. */
interface ReceiverBody {
  readonly url: string;
  readonly delivery?: "push" | "poll";
  readonly events?: readonly SecurityEventUri[];
  readonly form?: SecurityEventForm;
  readonly audience?: string;
  readonly authorization?: string;
  readonly label?: string;
  readonly start?: ReceiverStart;
}

/** The handlers of the event-receiver operations. */
export function eventReceiverHandlers(dependencies: AnalyticsDependencies<OrganizationStore>): EventReceiverHandlers {
  const { store, securityEvents, securityEventPollUrl } = dependencies;

  /**
   * The delivery and the organization `{id}` of the path. Without a delivery every organization
   * answers alike, before any lookup, so the answer reveals no organization.
   */
  async function organizationOf({ params, scope }: AnalyticsCall): Promise<{ delivery: SecurityEventDelivery; orgId: string }> {
    if (securityEvents === undefined) throw noDelivery();
    const organization = await store.getOrganization(scope, params["id"] ?? "");
    if (organization === undefined) throw noSuchOrganization();
    return { delivery: securityEvents, orgId: organization.id };
  }

  const render = (call: AnalyticsCall, receiver: EventReceiver) =>
    renderEventReceiver(receiver, securityEventPollUrl(receiver.orgId, receiver.id, call.request));

  async function receiverOf(call: AnalyticsCall): Promise<{ delivery: SecurityEventDelivery; orgId: string; receiver: EventReceiver }> {
    const { delivery, orgId } = await organizationOf(call);
    const receiverId = call.params["receiverId"] ?? "";
    const receiver = (await delivery.receivers(orgId)).find((candidate) => candidate.id === receiverId);
    if (receiver === undefined) throw noSuchReceiver();
    return { delivery, orgId, receiver };
  }

  return {
    async listOrganizationEventReceivers(call) {
      const { delivery, orgId } = await organizationOf(call);
      const receivers = await delivery.receivers(orgId);
      sendJson(call.response, 200, { data: receivers.map((receiver) => render(call, receiver)) });
    },

    async addOrganizationEventReceiver(call) {
      const { delivery, orgId } = await organizationOf(call);
      const { start, label, ...rest } = call.body as ReceiverBody;
      const trimmed = label?.trim();
      const input: EventReceiverInput = { ...rest, ...(trimmed === undefined ? {} : { label: trimmed }) };
      const errors = eventReceiverInputErrors(input);
      if (errors.length > 0)
        throw invalidRequest(
          errors.map((error) => ({
            field: `/${error.field}${error.index === undefined ? "" : `/${error.index}`}`,
            message: error.message,
          })),
        );
      let receiver: EventReceiver;
      try {
        receiver = await delivery.addReceiver(orgId, input, start ?? "now");
      } catch (error) {
        if (error instanceof InvalidEventReceiverError && error.quota !== undefined) throw conflict(error.message);
        // The library's own checks, should they refuse what the schema and ours let through.
        if (error instanceof InvalidEventReceiverError)
          throw invalidRequest([{ field: `/${fieldOfInvalidReceiver(error)}`, message: error.message }]);
        throw error;
      }
      call.response.setHeader(
        "Location",
        `${call.baseUrl}/organizations/${encodeURIComponent(orgId)}/event-receivers/${encodeURIComponent(receiver.id)}`,
      );
      sendJson(call.response, 201, render(call, receiver));
    },

    async getOrganizationEventReceiver(call) {
      const { receiver } = await receiverOf(call);
      sendJson(call.response, 200, render(call, receiver));
    },

    async removeOrganizationEventReceiver(call) {
      const { delivery, orgId } = await organizationOf(call);
      if (!(await delivery.removeReceiver(orgId, call.params["receiverId"] ?? ""))) throw noSuchReceiver();
      sendNoContent(call.response);
    },
  };
}
