/** Events emitted by admin user management (user deletion is identity's `user.deleted`). */
export interface AdminUsersEvents {}
