// qpdf (Apache-2.0) through its C job API: the same operations as the qpdf command line (fill by
// JSON update, generate appearance streams, merge pages, AES-256 encryption), run in process, with
// its messages captured by a logger instead of written to the process's output.
#include <qpdf/qpdfjob-c.h>
#include <qpdf/qpdflogger-c.h>
