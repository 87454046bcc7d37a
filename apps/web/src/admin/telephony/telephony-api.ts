import type { IvrDestinationOptions, IvrDetail, IvrTree } from '@centralita/contracts';
import type { ApiClient } from '../../api/http-client';

/** The IVR calls beyond the shared admin CRUD (/api/ivrs/:id/tree, apply, copy, pickers). */
export function createTelephonyApi(client: ApiClient) {
  const path = (id: string) => `/api/ivrs/${encodeURIComponent(id)}`;
  return {
    ivr: (id: string) => client.get<IvrDetail>(path(id)),
    saveTree: (id: string, tree: IvrTree) => client.request<IvrDetail>(`${path(id)}/tree`, { method: 'PUT', body: { tree } }),
    apply: (id: string) => client.post<IvrDetail>(`${path(id)}/apply`, {}),
    copy: (id: string, name: string) => client.post<IvrDetail>(`${path(id)}/copy`, { name }),
    destinationOptions: () => client.get<IvrDestinationOptions>('/api/ivrs/destination-options'),
  };
}

export type TelephonyApi = ReturnType<typeof createTelephonyApi>;
