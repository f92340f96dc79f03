/** A device's name as the inventory keys it: surrounding space dropped, ASCII letters in lower case. */
export const deviceKey = (name: string): string => name.trim().replace(/[A-Z]/g, (c) => c.toLowerCase());
