import { isLocalService } from '../../rules/base-url.js';

/**
 * The stderr line when POST /users made a new profile. On a remote host it is a real profile,
 * even with a sandbox key (the sandbox runs on the production dataset); those of a service on
 * this machine (the embedded one, a loopback `camroll serve`) are local.
 */
export function createdUserNotice(
  userId: string,
  email: string,
  target: { kind: 'remote' | 'embedded'; baseUrl: string },
  environment?: string,
): string {
  const real = isLocalService(target)
    ? ''
    : environment === 'production'
      ? ' (a real production profile)'
      : ' (a real profile: the sandbox runs on the production dataset)';
  return `created user ${userId} for ${email}${real}`;
}
