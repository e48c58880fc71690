export function setupCompare() {}
