// Route metadata lives in src/api/access (issue 32 item 3); this path stays for the modules that import it.
export * from '../../api/access/principal';
