/** The product's name, as the site, the mails and the authenticator apps show it. */
export const PRODUCT_NAME = 'Glob Network';
