/* The summary written at Shutdown (CLRTRACE_SUMMARY=0 turns it off):
 *
 *   # summary: 4 calls, 4 functions, 1 thread, 0 events dropped
 *   #  CALLS      TOTAL       SELF  FUNCTION
 *          1    12.3 us     9.6 us  Demo.Program.Main
 *
 * TOTAL is inclusive time, SELF is TOTAL minus the TOTAL of the traced calls
 * made from it (per call, summed), so the SELF column adds up to the TOTAL
 * of the outermost calls. Sorted by TOTAL, largest first. */
#ifndef CLRTRACE_SUMMARY_H
#define CLRTRACE_SUMMARY_H

void ct_summary_write(unsigned long threads, unsigned long dropped);

#endif
