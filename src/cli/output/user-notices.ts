/**
 * The stderr line when POST /users made a new profile. On a remote host it is a real profile,
 * even with a sandbox key (the sandbox runs on the production dataset); the embedded service's
 * are local.
 */
export function createdUserNotice(
  userId: string,
  email: string,
  kind: 'remote' | 'embedded',
  environment?: string,
): string {
  const real =
    kind === 'embedded'
      ? ''
      : environment === 'production'
        ? ' (a real production profile)'
        : ' (a real profile: the sandbox runs on the production dataset)';
  return `created user ${userId} for ${email}${real}`;
}
