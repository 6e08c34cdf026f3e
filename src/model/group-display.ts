// Display helpers shared by group, organization and dataset dicts.

/** ckan: title if non-empty, else name. */
export const displayName = (g: { title?: string | null; name: string }) =>
  g.title && g.title.trim() ? g.title : g.name

/** ckan: image_url as is when empty or absolute, else the upload URL under the site. */
export function imageDisplayUrl(imageUrl: string | null | undefined, siteUrl: string): string {
  if (!imageUrl || /^https?:/i.test(imageUrl)) return imageUrl ?? ''
  return `${siteUrl.replace(/\/+$/, '')}/uploads/group/${imageUrl}`
}
