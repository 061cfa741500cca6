/** Leaving the app for another site (a social sign-in page). An object, so tests can watch the call. */
export const browser = {
  assign(url: string): void {
    window.location.assign(url);
  },
};
