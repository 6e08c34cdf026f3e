// The invitation e-mail of user_invite: who invited the new user where, and the link that activates the account.

export interface Invitation {
  siteTitle: string
  siteUrl: string
  userId: string
  userName: string
  resetKey: string
  /** The title (else the name) of the organization or group. */
  groupTitle: string
  isOrganization: boolean
  /** admin, editor or member. */
  role: string
}

// ckan: roles are named capitalised in e-mails
const ROLE_NAMES: Record<string, string> = { admin: 'Admin', editor: 'Editor', member: 'Member' }

/** ckan: the password reset page, /user/reset/<user id>?key=<reset key>, on site_url. */
export function resetLink(siteUrl: string, userId: string, resetKey: string): string {
  const base = siteUrl.replace(/\/+$/, '')
  return `${base}/user/reset/${encodeURIComponent(userId)}?key=${encodeURIComponent(resetKey)}`
}

/** Subject and plain-text body of the invitation. */
export function invitationMail(i: Invitation): { subject: string; body: string } {
  const kind = i.isOrganization ? 'organization' : 'group'
  const role = ROLE_NAMES[i.role] ?? i.role
  const body = [
    `Hello ${i.userName},`,
    '',
    // One sentence a line: names and titles of any length never break a phrase apart.
    `You have been invited to ${i.siteTitle}.`,
    `An account has been made for you with the user name ${i.userName}; you can change it later.`,
    `You are now ${role} of the ${kind} "${i.groupTitle}".`,
    '',
    'To accept the invitation, choose your password on this page:',
    '',
    `   ${resetLink(i.siteUrl, i.userId, i.resetKey)}`,
    '',
    '--',
    `${i.siteTitle} (${i.siteUrl})`,
    '',
  ].join('\n')
  return { subject: `Invitation to ${i.siteTitle}`, body }
}
