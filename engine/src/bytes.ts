const GB = 1024 ** 3;

/** A size for people: '4.2 GB', or '41.0 MB' below a gigabyte. */
export const formatBytes = (n: number): string => (n >= GB ? `${(n / GB).toFixed(1)} GB` : `${(n / 1024 ** 2).toFixed(1)} MB`);
