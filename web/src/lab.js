export function setupLab() {}
