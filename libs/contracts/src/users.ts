/** Admin views of users and roles (GET /api/users, /api/roles). Ids are UUIDs. */
export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  pageSize: number;
}
export interface UserSummary {
  id: string;
  email: string;
  name: string;
  avatar: string | null;
  roleId: string;
  roleCode: string;
  active: boolean;
  sessionTime: number;
  passwordExpiresAt: string | null;
  lastLoginAt: string | null;
  createdAt: string;
}
/** PATCH /api/users/:id: every field optional; deactivating ends the user's sessions at once. */
export interface UpdateUserRequest {
  name?: string;
  active?: boolean;
  roleId?: string;
}
export interface RoleSummary {
  id: string;
  code: string;
  name: string;
  permissions: string[];
  builtIn: boolean;
}
export interface RoleCodeOption {
  id: string;
  code: string;
  name: string;
}
