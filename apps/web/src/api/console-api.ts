import type {
  AuthResult,
  Branding,
  InvitationCheck,
  LoginRequest,
  MenuItem,
  RegisterRequest,
  RegistrationConfirmed,
  RegistrationOptions,
  SessionUser,
} from '@centralita/contracts';
import { createAdminApi } from '../admin/admin-api';
import type { ApiClient } from './http-client';

/** The calls the console shell makes (spec §7), typed once. */
export function createConsoleApi(client: ApiClient) {
  return {
    login: (body: LoginRequest) => client.post<AuthResult>('/api/auth/login', body, { auth: false }),
    /** Always answers "check your email" (the API never says whether the address has an account). */
    register: (body: RegisterRequest) => client.post<{ accepted: true }>('/api/auth/register', body, { auth: false }),
    registrationOptions: () => client.get<RegistrationOptions>('/api/auth/registration', { auth: false }),
    confirmRegistration: (token: string) => client.post<RegistrationConfirmed>('/api/auth/register/confirm', { token }, { auth: false }),
    logout: (userId: string, accessToken: string | undefined) =>
      client.post<unknown>('/api/auth/logout', { userId }, { accessToken, refreshOnUnauthorized: false }),
    userInfo: (userId: string) => client.get<SessionUser>('/api/auth/user-info', { query: { UserId: userId } }),
    branding: () => client.get<Branding>('/api/general/branding'),
    publicBranding: (clientId: string) => client.get<Branding>('/api/general/branding', { query: { clientId }, auth: false }),
    menu: () => client.get<MenuItem[]>('/api/menu'),
    sendResetPasswordEmail: (email: string) => client.post<unknown>('/Session/SendResetPasswordEmail', { email }, { auth: false }),
    validateResetToken: (token: string) => client.get<unknown>('/Session/ValidateUrlToResetPassword', { query: { token }, auth: false }),
    resetPassword: (token: string, password: string) =>
      client.post<unknown>('/Session/ResetPassword', { token, password }, { auth: false }),
    checkInvitation: (token: string) => client.post<InvitationCheck>('/api/invitations/check', { token }, { auth: false }),
    acceptInvitation: (token: string, password: string) =>
      client.post<AuthResult>('/api/invitations/accept', { token, password }, { auth: false }),
    admin: createAdminApi(client),
  };
}

export type ConsoleApi = ReturnType<typeof createConsoleApi>;
