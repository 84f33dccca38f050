// SPDX-License-Identifier: GPL-2.0
//
// The call sites through which the kernel binds or creates a socket for
// someone, lets user space drive a socket the kernel made, or runs code
// with credentials that are not the task's own: each is a possible way
// around a reservation, which tools/workbench/audit/ways-in classifies.
// One "SITE FILE FUNCTION WHAT" line per site (ways.sh).
//
// Options: --all-includes

virtual report

@call depends on report@
position p;
identifier f = {kernel_bind, kernel_listen, sock_create_kern,
		udp_sock_create, udp_sock_create4, udp_sock_create6,
		sock_alloc_file, override_creds};
@@
f@p(...)

@script:python depends on report@
p << call.p;
f << call.f;
@@
print("SITE %s %s %s" % (p[0].file, p[0].current_element, f))

// Credential guards: scoped_class(override_creds, ...) and the like.
@guard depends on report@
position p;
identifier g = {scoped_class, CLASS, scoped_guard, guard};
@@
g@p(override_creds, ...)

@script:python depends on report@
p << guard.p;
@@
print("SITE %s %s override_creds" % (p[0].file, p[0].current_element))

@kern depends on report@
position p;
expression X, E;
@@
X->sk_kern_sock@p = E

@script:python depends on report@
p << kern.p;
@@
print("SITE %s %s sk_kern_sock=" % (p[0].file, p[0].current_element))

@sockfile depends on report@
position p;
struct socket *S;
struct socket *T;
expression E, X;
@@
(
S->file@p = E
|
X->file@p = T->file
)

@script:python depends on report@
p << sockfile.p;
@@
print("SITE %s %s socket->file=" % (p[0].file, p[0].current_element))

@privdata depends on report@
position p;
struct socket *S;
expression F;
@@
F->private_data@p = S

@script:python depends on report@
p << privdata.p;
@@
print("SITE %s %s file->private_data=socket" % (p[0].file, p[0].current_element))
