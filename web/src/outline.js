export function setupOutline() {}
