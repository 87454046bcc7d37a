/**
 * Renews the console session through the auth services' one single-flight refresh; resolves false
 * when the session cannot be renewed, after starting the normal signed-out path. Registered once at
 * start-up (app/services.ts). Long-lived connections that outlive an access token (the staff
 * socket, whose handshake is refused once the token expired while the tab's timers were throttled)
 * ask for it instead of holding a reference to the services. Kept free of imports so the main
 * bundle does not pull in the socket client.
 */
export type SessionRenewal = () => Promise<boolean>;

let registered: SessionRenewal | null = null;

export function setSessionRenewal(renew: SessionRenewal | null): void {
  registered = renew;
}

export function sessionRenewal(): SessionRenewal | null {
  return registered;
}
