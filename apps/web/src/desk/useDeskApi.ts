import { useMemo } from 'react';
import { useServices } from '../app/ServicesContext';
import { createDeskApi, type DeskApi } from './desk-api';

/** The staff desk calls, on the console's own client (bearer, single-flight refresh on 401, expiry). */
export function useDeskApi(): DeskApi {
  const { client } = useServices();
  return useMemo(() => createDeskApi(client), [client]);
}
